import { FEED_VIEWS } from "@turnout/domain";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { queryIntSchema } from "../../request-schemas.js";
import { actorOf } from "../../shared/guard.js";
import { type FeedReader, mapJobs } from "./service.js";

/** The longest window a map may ask for, in hours (a week). */
export const MAP_HOURS_MAX = 168;

/**
 * The map of jobs (issue 34): its settings and the jobs of the member's view with their positions,
 * read from the feed through `readFeed` (the alerts module's search, given by app.ts).
 */
export async function mapRoutes(app: FastifyInstance, options: { readFeed: FeedReader }): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();

  r.get("/map/settings", async () => ({
    success: true,
    data: {
      tile_url: app.config.map.tileUrl,
      attribution: app.config.map.tileAttribution,
      hours: app.config.map.hours,
    },
  }));

  r.get(
    "/map/jobs",
    {
      schema: {
        querystring: z.object({
          hours: queryIntSchema("hours", 1, MAP_HOURS_MAX).optional(),
          view: z.enum(FEED_VIEWS, "view must be 'units' or 'agencies'").optional(),
        }),
      },
    },
    async (request) => ({
      success: true,
      data: await mapJobs(app.db, options.readFeed, actorOf(request), {
        hours: request.query.hours ?? app.config.map.hours,
        view: request.query.view,
      }),
    }),
  );
}
