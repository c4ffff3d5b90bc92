import {
  ALERT_PAGE_SIZE,
  ALERT_PAGE_SIZE_MAX,
  FEED_VIEWS,
  RECENT_ALERTS_DEFAULT_LIMIT,
  STATS_DEFAULT_DAYS,
} from "@turnout/domain";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { bigIdParamsSchema, queryIntSchema, recordIdSchema } from "../../request-schemas.js";
import { positionsOf } from "../../shared/alerts/positions.js";
import { actorOf } from "../../shared/guard.js";
import { alertStats, getAlert, getAlertGroup, recentAlerts, searchAlerts } from "./service.js";

const flag = z
  .enum(["true", "false", "1", "0"])
  .optional()
  .transform((v) => v === "true" || v === "1");
const agencyIdParam = recordIdSchema.optional();
/** The unit view (issue 26): the member's units, the default, or their whole agencies. */
const viewParam = z.enum(FEED_VIEWS, "view must be 'units' or 'agencies'").optional();
const alertId = bigIdParamsSchema;

/** SPEC 7 'Alerts': the feed, one alert, its job group, and counts. Every route needs a signed-in user. */
export async function alertRoutes(app: FastifyInstance): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();

  r.get(
    "/alerts/search",
    {
      schema: {
        querystring: z.object({
          limit: queryIntSchema("limit", 1, ALERT_PAGE_SIZE_MAX).default(ALERT_PAGE_SIZE),
          search: z.string().max(200).optional(),
          type: z.enum(["emergency", "non-emergency", "administrative", "admin", "standard"]).optional(),
          area: z.string().max(100).optional(),
          agency_id: agencyIdParam,
          admin_context: flag,
          cursor: z.string().max(200).optional(),
          grouped: flag,
          view: viewParam,
          show_machine: flag,
        }),
      },
    },
    async (request) => {
      const q = request.query;
      const result = await searchAlerts(
        app.db,
        actorOf(request),
        {
          limit: q.limit,
          search: q.search,
          type: q.type,
          area: q.area || undefined,
          agencyId: q.agency_id,
          adminContext: q.admin_context,
          cursor: q.cursor || undefined,
          grouped: q.grouped,
          view: q.view,
          showMachine: q.show_machine,
        },
        { engine: app.dbKind, quick: app.quickDb },
      );
      return { success: true, ...result };
    },
  );

  r.get(
    "/alerts/recent",
    {
      schema: {
        querystring: z.object({
          limit: queryIntSchema("limit", 1, ALERT_PAGE_SIZE_MAX).default(RECENT_ALERTS_DEFAULT_LIMIT),
          agency_id: agencyIdParam,
          view: viewParam,
        }),
      },
    },
    async (request) => ({
      success: true,
      data: await recentAlerts(app.db, actorOf(request), {
        limit: request.query.limit,
        agencyId: request.query.agency_id,
        view: request.query.view,
      }),
    }),
  );

  r.get(
    "/alerts/stats/overview",
    {
      schema: {
        querystring: z.object({
          days: queryIntSchema("days", 1, 366).default(STATS_DEFAULT_DAYS),
          agency_id: agencyIdParam,
        }),
      },
    },
    async (request) => ({
      success: true,
      data: await alertStats(app.db, actorOf(request), {
        days: request.query.days,
        agencyId: request.query.agency_id,
      }),
    }),
  );

  r.get("/alerts/:id", { schema: { params: alertId } }, async (request) => {
    const alert = await getAlert(app.db, actorOf(request), request.params.id);
    // Where the job is (issue 34): latitude, longitude and precision, or null.
    const position = (await positionsOf(app.db, [alert.id])).get(alert.id) ?? null;
    return { success: true, data: { ...alert, position } };
  });

  r.get("/alerts/:id/group", { schema: { params: alertId } }, async (request) => ({
    success: true,
    data: await getAlertGroup(app.db, actorOf(request), request.params.id),
  }));
}
