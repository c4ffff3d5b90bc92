import { bulkFiltersSchema, userFilterInputSchema } from "@turnout/domain";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { idParamsSchema } from "../../request-schemas.js";
import { actorOf } from "../../shared/guard.js";
import { presentFilterableAgency, presentUserFilter } from "./present.js";
import {
  deleteUserFilter,
  listFilterableAgencies,
  listUserFilters,
  replaceUserFilters,
  resetUserFilters,
  saveUserFilter,
} from "./service.js";

/** SPEC 7 'User filters': which agencies a signed-in user shows or hides in their feed. */
export async function userFilterRoutes(app: FastifyInstance): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();

  r.get("/user-filters", async (request) => {
    const rows = await listUserFilters(app.db, actorOf(request));
    return { success: true, data: rows.map(presentUserFilter) };
  });

  r.get("/user-filters/available", async (request) => {
    const rows = await listFilterableAgencies(app.db, actorOf(request));
    return { success: true, data: rows.map(presentFilterableAgency) };
  });

  r.post("/user-filters", { schema: { body: userFilterInputSchema } }, async (request) => {
    const row = await saveUserFilter(app.db, actorOf(request), request.body);
    return { success: true, message: "Filter saved.", data: presentUserFilter(row) };
  });

  r.post("/user-filters/bulk", { schema: { body: bulkFiltersSchema } }, async (request) => {
    const rows = await replaceUserFilters(app.db, actorOf(request), request.body.filters);
    return { success: true, message: "Filter settings saved.", data: rows.map(presentUserFilter) };
  });

  r.delete("/user-filters/:id", { schema: { params: idParamsSchema } }, async (request) => {
    await deleteUserFilter(app.db, actorOf(request), request.params.id);
    return { success: true, message: "Filter removed." };
  });

  r.delete("/user-filters", async (request) => {
    const deleted = await resetUserFilters(app.db, actorOf(request));
    return { success: true, message: "Filters reset.", deleted };
  });
}
