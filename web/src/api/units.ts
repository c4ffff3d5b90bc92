import { z } from "zod/mini";
import { api } from "./client";

/** A unit offered to a member or at registration (issue 26): where it is and how far. */
export const offeredUnitSchema = z.object({
  id: z.number(),
  name: z.string(),
  code: z.nullish(z.string()),
  agency_id: z.number(),
  agency_name: z.string(),
  suburb: z.nullish(z.string()),
  state: z.nullish(z.string()),
  distance_km: z.nullish(z.number()),
});
export type OfferedUnit = z.infer<typeof offeredUnitSchema>;

const ownUnitsSchema = z.object({
  units: z.array(
    z.object({ id: z.number(), name: z.string(), agency_id: z.number(), agency_name: z.string() }),
  ),
});

const offered = (reply: unknown) => z.object({ data: z.array(offeredUnitSchema) }).parse(reply).data;

/** A place as registration knows it. */
export type Place = { postcode: string; suburb: string; state: string };

export const unitsApi = {
  /** The units of a sign-up agency (by code) nearest a place, for anyone registering. */
  async nearby(agencyCode: string, place: Place, signal?: AbortSignal): Promise<OfferedUnit[]> {
    const reply = await api.get("/units/nearby", {
      signal,
      query: { agency: agencyCode, postcode: place.postcode, suburb: place.suburb, state: place.state },
    });
    return offered(reply);
  },

  /** The units of the member's agencies nearest where they live, or those whose name holds `name`. */
  async available(name: string, signal?: AbortSignal): Promise<OfferedUnit[]> {
    return offered(await api.get("/units", { signal, query: { name: name.trim() || undefined } }));
  },

  /** The member's own units. */
  async mine(signal?: AbortSignal) {
    return z.object({ data: ownUnitsSchema }).parse(await api.get("/units/mine", { signal })).data.units;
  },

  /** Makes these the member's units (only units of their agencies; 400 otherwise). */
  async setMine(unitIds: number[]) {
    return z.object({ data: ownUnitsSchema }).parse(await api.put("/units/mine", { unit_ids: unitIds })).data
      .units;
  },
};
