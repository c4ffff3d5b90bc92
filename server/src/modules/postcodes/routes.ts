import { MESSAGES } from "@turnout/domain";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { AppError, rateLimited } from "../../errors.js";
import { lookupPostcode, searchLocations } from "./service.js";

/** Requests one client IP may make to these routes per minute (typing with a 300 ms pause stays far below). */
export const POSTCODE_REQUESTS_PER_MINUTE = 120;

const lookupParams = z.object({
  postcode: z.string().regex(/^\d{4}$/, "A postcode is exactly 4 digits."),
});

const searchParams = z.object({
  text: z
    .string()
    .trim()
    .min(2, "Type at least 3 letters of the suburb to search.")
    .max(60, "Search text is at most 60 characters."),
});

const locationsReply = z.object({
  success: z.literal(true),
  data: z.array(z.object({ postcode: z.string(), suburb: z.string(), state_abbreviation: z.string() })),
});

const notFoundReply = z.object({
  success: z.literal(false),
  message: z.string(),
  error: z.string(),
  errorType: z.literal("not_found"),
});

const PUBLIC = { access: "public" } as const;

const responses = { 200: locationsReply, 404: notFoundReply };

/**
 * GET /api/postcode/lookup/:postcode and GET /api/postcode/search/:text (SPEC 5 and 7), public because
 * registration uses them; throttled per client IP.
 */
export async function postcodeRoutes(app: FastifyInstance): Promise<void> {
  app.addHook("onRequest", throttlePerIp);

  const routes = app.withTypeProvider<ZodTypeProvider>();

  routes.get(
    "/postcode/lookup/:postcode",
    { config: PUBLIC, schema: { params: lookupParams, response: responses } },
    async (request) => found(await lookupPostcode(app.db, request.params.postcode)),
  );

  routes.get(
    "/postcode/search/:text",
    { config: PUBLIC, schema: { params: searchParams, response: responses } },
    async (request) => found(await searchLocations(app.db, request.params.text)),
  );

  async function throttlePerIp(request: FastifyRequest): Promise<void> {
    // A cache outage must not stop people registering: the lookups are cheap, counted here meanwhile.
    const { count, ttlSeconds } = await app.cache.increment(`postcode:ip:${request.ip}`, 60, {
      whenDown: "count-locally",
    });
    if (count > POSTCODE_REQUESTS_PER_MINUTE) {
      throw rateLimited("Too many location searches. Please wait a moment and try again.", ttlSeconds);
    }
  }
}

function found<T>(data: T[]): { success: true; data: T[] } {
  if (data.length === 0) {
    throw new AppError(404, "not_found", MESSAGES.LOCATION_NOT_FOUND, { error: MESSAGES.LOCATION_NOT_FOUND });
  }
  return { success: true, data };
}
