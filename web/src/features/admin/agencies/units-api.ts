import { z } from "zod/mini";
import { api } from "../../../api/client";
import { orEmpty } from "../../../api/schema-helpers";
import { dataOf, messageOf } from "./agencies-api";

const id = z.number();

/** A capcode a unit is paged on. */
export const unitCapcodeSchema = z.object({ id, capcode: z.string(), alias: z.nullish(z.string()) });

/** A unit as the admin console lists it (issue 26): its place, capcodes and member count. */
export const adminUnitSchema = z.object({
  id,
  agency_id: id,
  name: z.string(),
  code: z.nullish(z.string()),
  postcode: z.nullish(z.string()),
  suburb: z.nullish(z.string()),
  state: z.nullish(z.string()),
  has_location: z.nullish(z.boolean()),
  member_count: z.nullish(z.number()),
  capcodes: orEmpty(z.array(unitCapcodeSchema)),
});
export type AdminUnit = z.output<typeof adminUnitSchema>;

/** A unit as a user's units list it. */
export const userUnitSchema = z.object({
  id,
  name: z.string(),
  code: z.nullish(z.string()),
  agency_id: id,
  agency_name: z.string(),
});
export type UserUnit = z.output<typeof userUnitSchema>;

/** What an admin writes for a unit (domain unitInputSchema checks it on both sides); null for none. */
export interface UnitFields {
  name: string;
  code: string | null;
  postcode: string | null;
  suburb: string | null;
  state: string | null;
}

export const unitsApi = {
  /** An agency's units by name, each with its capcodes and member count. */
  async listAgencyUnits(agencyId: number, signal?: AbortSignal): Promise<AdminUnit[]> {
    const reply = await api.get(`/admin/agencies/${agencyId}/units`, { signal });
    return dataOf(z.array(adminUnitSchema)).parse(reply).data;
  },

  /** 409 when the agency has a unit of that name; 400 when the place is not a bundled locality. */
  async createUnit(agencyId: number, fields: UnitFields): Promise<AdminUnit> {
    return dataOf(adminUnitSchema).parse(await api.post(`/admin/agencies/${agencyId}/units`, fields)).data;
  },

  async updateUnit(unitId: number, fields: UnitFields): Promise<AdminUnit> {
    return dataOf(adminUnitSchema).parse(await api.put(`/admin/units/${unitId}`, fields)).data;
  },

  /** Its members go back to their whole agency's view. */
  async deleteUnit(unitId: number): Promise<string> {
    return messageOf(await api.delete(`/admin/units/${unitId}`), "Unit deleted.");
  },

  /** Makes these (the unit's agency's own) capcodes the ones the unit is paged on. */
  async setUnitCapcodes(unitId: number, capcodeIds: number[]): Promise<string> {
    const reply = await api.put(`/admin/units/${unitId}/capcodes`, { capcode_ids: capcodeIds });
    return messageOf(reply, "Capcodes saved.");
  },

  async listUserUnits(userId: number, signal?: AbortSignal): Promise<UserUnit[]> {
    const reply = await api.get(`/admin/users/${userId}/units`, { signal });
    return dataOf(z.array(userUnitSchema)).parse(reply).data;
  },

  /** The user's units from now on; the units' agencies are assigned with them. */
  async setUserUnits(userId: number, unitIds: number[]): Promise<UserUnit[]> {
    const reply = await api.put(`/admin/users/${userId}/units`, { unit_ids: unitIds });
    return dataOf(z.array(userUnitSchema)).parse(reply).data;
  },
};
