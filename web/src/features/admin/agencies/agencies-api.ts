import { z } from "zod/mini";
import { api } from "../../../api/client";
import { orEmpty } from "../../../api/schema-helpers";

const id = z.number();
const label = z.nullish(z.string());

/** An agency as the admin console sees it: SPEC 3 'Agency' with its logo, description and counts. */
export const adminAgencySchema = z.object({
  id,
  name: z.string(),
  code: z.string(),
  logo_path: z.nullish(z.string()),
  description: z.nullish(z.string()),
  capcode_count: z.nullish(z.number()),
  user_count: z.nullish(z.number()),
});
export type AdminAgency = z.infer<typeof adminAgencySchema>;

/** A capcode mapping: a pager address under one agency, with an optional alias and area. */
export const capcodeSchema = z.object({
  id,
  capcode: z.string(),
  agency_id: id,
  alias: label,
  area: label,
});
export type Capcode = z.infer<typeof capcodeSchema>;

/** A capcode still under UNMAPPED, with how often and when last it was paged. */
export const unmappedCapcodeSchema = z.extend(capcodeSchema, {
  message_count: z.number(),
  last_seen: z.nullish(z.string()),
});
export type UnmappedCapcode = z.infer<typeof unmappedCapcodeSchema>;

/** One recent message of a capcode. */
export const capcodeMessageSchema = z.object({
  id,
  type: z.nullish(z.string()),
  message: z.string(),
  created_at: z.string(),
});
export type CapcodeMessage = z.infer<typeof capcodeMessageSchema>;

/** A capcode's mapping in an import; `units` only when the import sets them (issue 26). */
const mappingSchema = z.object({
  agency: z.nullish(z.string()),
  alias: label,
  area: label,
  units: z.nullish(z.array(z.string())),
});

/** What a CSV import did, or (dry run) would do, line by line. */
export const importResultSchema = z.object({
  applied: z.boolean(),
  created: z.array(z.extend(mappingSchema, { line: z.number(), capcode: z.string() })),
  changed: z.array(
    z.object({ line: z.number(), capcode: z.string(), from: mappingSchema, to: mappingSchema }),
  ),
  unchanged: z.number(),
  refused: z.array(z.object({ line: z.number(), reason: z.string() })),
  /** Units the import creates (named in a `unit` column, or by aliases). */
  units_created: orEmpty(z.array(z.object({ agency: z.string(), name: z.string() }))),
});
export type ImportResult = z.infer<typeof importResultSchema>;

export interface AgencyFields {
  name: string;
  code: string;
  description: string | null;
}

export interface CapcodeFields {
  capcode: string;
  alias: string | null;
  area: string | null;
}

/** The `{ data }` envelope around a schema. */
export const dataOf = <T extends z.ZodMiniType>(schema: T) => z.object({ data: schema });
const messageSchema = z.object({ message: z.nullish(z.string()) });

/** The server's own words for a change that worked (`message`), or a plain fallback. */
export function messageOf(reply: unknown, fallback: string): string {
  return messageSchema.safeParse(reply).data?.message ?? fallback;
}

export const agenciesApi = {
  async listAgencies(signal?: AbortSignal): Promise<AdminAgency[]> {
    return dataOf(z.array(adminAgencySchema)).parse(await api.get("/admin/agencies", { signal })).data;
  },

  async createAgency(fields: AgencyFields): Promise<AdminAgency> {
    return dataOf(adminAgencySchema).parse(await api.post("/admin/agencies", fields)).data;
  },

  async updateAgency(agencyId: number, fields: AgencyFields): Promise<AdminAgency> {
    return dataOf(adminAgencySchema).parse(await api.put(`/admin/agencies/${agencyId}`, fields)).data;
  },

  /** Refused (409, with the reason) while the agency still has capcodes, users or alerts. */
  async deleteAgency(agencyId: number): Promise<string> {
    return messageOf(await api.delete(`/admin/agencies/${agencyId}`), "Agency deleted.");
  },

  /** Multipart, field `logo` (PNG, JPEG, WebP or SVG, at most 2 MB). */
  async uploadLogo(agencyId: number, file: File): Promise<AdminAgency> {
    const form = new FormData();
    form.append("logo", file);
    return dataOf(adminAgencySchema).parse(await api.post(`/admin/agencies/${agencyId}/logo`, form)).data;
  },

  async removeLogo(agencyId: number): Promise<AdminAgency> {
    return dataOf(adminAgencySchema).parse(await api.delete(`/admin/agencies/${agencyId}/logo`)).data;
  },

  async listAgencyCapcodes(agencyId: number, signal?: AbortSignal): Promise<Capcode[]> {
    const reply = await api.get(`/admin/agencies/${agencyId}/capcodes`, { signal });
    return dataOf(z.array(capcodeSchema)).parse(reply).data;
  },

  /** Places every listed capcode under the agency (new ones created, others moved); the server's summary. */
  async bulkAddCapcodes(agencyId: number, capcodes: CapcodeFields[]): Promise<string> {
    const reply = await api.post(`/admin/agencies/${agencyId}/capcodes/bulk`, { capcodes });
    return messageOf(reply, `${capcodes.length} capcodes saved.`);
  },

  async createCapcode(agencyId: number, fields: CapcodeFields): Promise<Capcode> {
    const reply = await api.post("/admin/capcodes", { ...fields, agency_id: agencyId });
    return dataOf(capcodeSchema).parse(reply).data;
  },

  async updateCapcode(capcodeId: number, fields: CapcodeFields): Promise<Capcode> {
    return dataOf(capcodeSchema).parse(await api.put(`/admin/capcodes/${capcodeId}`, fields)).data;
  },

  async deleteCapcode(capcodeId: number): Promise<string> {
    return messageOf(await api.delete(`/admin/capcodes/${capcodeId}`), "Capcode deleted.");
  },

  async listUnmappedCapcodes(signal?: AbortSignal): Promise<UnmappedCapcode[]> {
    const reply = await api.get("/admin/capcodes/unmapped", { signal });
    return dataOf(z.array(unmappedCapcodeSchema)).parse(reply).data;
  },

  async listCapcodeMessages(capcodeId: number, signal?: AbortSignal): Promise<CapcodeMessage[]> {
    const reply = await api.get(`/admin/capcodes/${capcodeId}/messages`, { signal });
    return dataOf(z.array(capcodeMessageSchema)).parse(reply).data;
  },

  /** SPEC 3 'Capcode assignment payload'; the capcode's earlier UNMAPPED alerts move with it. */
  async assignCapcode(capcodeId: number, assignment: { agency_id: number; alias: string | null }) {
    const reply = await api.post(`/admin/capcodes/${capcodeId}/assign`, assignment);
    return z
      .object({ message: z.nullish(z.string()), data: z.object({ moved_alerts: z.nullish(z.number()) }) })
      .parse(reply);
  },

  /**
   * PagerMon's capcode CSV; `dry_run` writes nothing and says what applying would do. With
   * `unitsFromAlias` (a CSV without a `unit` column) each capcode joins the unit its alias names.
   */
  async importCapcodes(csv: string, dryRun: boolean, unitsFromAlias = false): Promise<ImportResult> {
    const body = { csv, dry_run: dryRun, ...(unitsFromAlias ? { units_from_alias: true } : {}) };
    const reply = await api.post("/admin/capcodes/import", body);
    return dataOf(importResultSchema).parse(reply).data;
  },

  /** Every mapped capcode as PagerMon's capcode CSV (the text of capcodes.csv). */
  async exportCapcodes(): Promise<string> {
    const reply = await api.get<unknown>("/admin/capcodes/export");
    return typeof reply === "string" ? reply : "";
  },
};
