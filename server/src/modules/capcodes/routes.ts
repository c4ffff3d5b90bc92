import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { idParamsSchema, queryIntSchema, recordIdSchema } from "../../request-schemas.js";
import { presentAgency } from "../../shared/present-user.js";
import { CAPCODE_CSV_COLUMNS, toCsv, UNIT_SEPARATOR } from "./csv.js";
import { importCapcodes, listCapcodesForExport } from "./import-export.js";
import { presentCapcode, presentCapcodeMessage, presentUnmappedCapcode } from "./present.js";
import { capcodeNumberSchema, labelSchema } from "./schemas.js";
import {
  assignCapcode,
  bulkAssignCapcodes,
  createCapcode,
  deleteCapcode,
  listAgencyCapcodes,
  listCapcodeMessages,
  listUnmappedCapcodes,
  setCapcodeAlias,
  updateCapcode,
} from "./service.js";

/** Default and largest `limit` of GET /admin/capcodes/:id/messages. */
export const CAPCODE_MESSAGES_DEFAULT_LIMIT = 50;
export const CAPCODE_MESSAGES_MAX_LIMIT = 200;

const newCapcodeBody = z.object({
  capcode: capcodeNumberSchema,
  agency_id: recordIdSchema,
  alias: labelSchema,
  area: labelSchema,
});

const capcodeChangesBody = z.object({
  capcode: z.optional(capcodeNumberSchema),
  agency_id: recordIdSchema.optional(),
  alias: labelSchema,
  area: labelSchema,
});

const messagesQuery = z.object({
  limit: queryIntSchema("limit", 1, CAPCODE_MESSAGES_MAX_LIMIT).default(CAPCODE_MESSAGES_DEFAULT_LIMIT),
});

const aliasBody = z.object({
  alias: z
    .string()
    .trim()
    .max(100, "must be at most 100 characters")
    .nullable()
    .transform((v) => v || null),
});

/** Largest CSV text an import takes (a PagerMon export of tens of thousands of capcodes fits). */
export const CAPCODE_IMPORT_MAX_CHARS = 1_048_576;

const importBody = z.object({
  csv: z.string().max(CAPCODE_IMPORT_MAX_CHARS, "must be at most 1 MB"),
  dry_run: z.boolean(),
  /** Without a `unit` column (a PagerMon export), each capcode joins the unit its alias names (issue 26). */
  units_from_alias: z.boolean().optional(),
});

/** Most capcodes one bulk request may place. */
export const BULK_CAPCODES_MAX = 1000;

const bulkCapcodesBody = z.object({
  capcodes: z
    .array(z.object({ capcode: capcodeNumberSchema, alias: labelSchema, area: labelSchema }))
    .min(1, "must list at least one capcode")
    .max(BULK_CAPCODES_MAX, `must list at most ${BULK_CAPCODES_MAX} capcodes`),
});

const assignBody = z.object({
  agency_id: recordIdSchema,
  alias: labelSchema,
  area: labelSchema,
});

/**
 * SPEC 7 'Admin: agencies and capcodes', the capcode half: mapping pager addresses to agencies, an
 * agency's capcodes included.
 */
export async function capcodeRoutes(app: FastifyInstance): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();

  r.get("/admin/agencies/:id/capcodes", { schema: { params: idParamsSchema } }, async (request) => {
    const rows = await listAgencyCapcodes(app.db, request.params.id);
    return { success: true, data: rows.map(presentCapcode) };
  });

  r.post(
    "/admin/agencies/:id/capcodes/bulk",
    { schema: { params: idParamsSchema, body: bulkCapcodesBody } },
    async (request) => {
      const result = await bulkAssignCapcodes(app.db, request.params.id, request.body.capcodes);
      return {
        success: true,
        message: `${result.created} created, ${result.moved} moved, ${result.updated} updated, ${result.unchanged} unchanged.`,
        data: result,
      };
    },
  );

  r.post("/admin/capcodes", { schema: { body: newCapcodeBody } }, async (request, reply) => {
    const { capcode, agency_id, alias, area } = request.body;
    const row = await createCapcode(app.db, { capcode, agencyId: agency_id, alias, area });
    return reply.status(201).send({ success: true, message: "Capcode added.", data: presentCapcode(row) });
  });

  r.get("/admin/capcodes/export", async (_request, reply) => {
    const rows = await listCapcodesForExport(app.db);
    // PagerMon's columns: icon and colour are its display settings, pluginconf its plugin settings,
    // ignore its drop flag; Turnout has none of them, so they go out empty, {} and 0.
    const csv = toCsv([
      [...CAPCODE_CSV_COLUMNS],
      ...rows.map((c) => [
        c.id,
        c.capcode,
        c.alias,
        c.agencyCode,
        null,
        null,
        "{}",
        0,
        c.area,
        c.units.join(`${UNIT_SEPARATOR} `),
      ]),
    ]);
    return reply
      .header("content-type", "text/csv; charset=utf-8")
      .header("content-disposition", 'attachment; filename="capcodes.csv"')
      .send(csv);
  });

  r.post(
    "/admin/capcodes/import",
    // JSON escaping can make the CSV's quotes and line ends take up to twice their size in the body.
    { schema: { body: importBody }, bodyLimit: 3 * CAPCODE_IMPORT_MAX_CHARS },
    async (request) => {
      const result = await importCapcodes(app.db, request.body.csv, request.body.dry_run, {
        unitsFromAlias: request.body.units_from_alias === true,
      });
      return { success: true, data: result };
    },
  );

  r.get("/admin/capcodes/unmapped", async () => {
    const rows = await listUnmappedCapcodes(app.db);
    return { success: true, data: rows.map(presentUnmappedCapcode) };
  });

  r.put(
    "/admin/capcodes/:id",
    { schema: { params: idParamsSchema, body: capcodeChangesBody } },
    async (request) => {
      const { capcode, agency_id, alias, area } = request.body;
      const row = await updateCapcode(app.db, request.params.id, {
        capcode,
        agencyId: agency_id,
        alias,
        area,
      });
      return { success: true, message: "Capcode updated.", data: presentCapcode(row) };
    },
  );

  r.delete("/admin/capcodes/:id", { schema: { params: idParamsSchema } }, async (request) => {
    const row = await deleteCapcode(app.db, request.params.id);
    return {
      success: true,
      message: `Capcode ${row.capcode} deleted. Alerts it already received stay with their agencies.`,
    };
  });

  r.get(
    "/admin/capcodes/:id/messages",
    { schema: { params: idParamsSchema, querystring: messagesQuery } },
    async (request) => {
      const rows = await listCapcodeMessages(app.db, request.params.id, request.query.limit);
      return { success: true, data: rows.map(presentCapcodeMessage) };
    },
  );

  r.put(
    "/admin/capcodes/:id/alias",
    { schema: { params: idParamsSchema, body: aliasBody } },
    async (request) => {
      const row = await setCapcodeAlias(app.db, request.params.id, request.body.alias);
      return { success: true, message: "Alias saved.", data: presentCapcode(row) };
    },
  );

  r.post(
    "/admin/capcodes/:id/assign",
    { schema: { params: idParamsSchema, body: assignBody } },
    async (request) => {
      const { capcode, agency, movedAlerts } = await assignCapcode(app.db, request.params.id, {
        agencyId: request.body.agency_id,
        alias: request.body.alias,
        area: request.body.area,
      });
      const alias = capcode.alias ? ` (${capcode.alias})` : "";
      return {
        success: true,
        message: `Capcode ${capcode.capcode}${alias} assigned to ${agency.name}.`,
        data: { capcode: presentCapcode(capcode), agency: presentAgency(agency), moved_alerts: movedAlerts },
      };
    },
  );
}
