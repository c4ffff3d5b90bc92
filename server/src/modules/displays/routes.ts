import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { recordIdSchema } from "../../request-schemas.js";
import { authenticateDisplay, DISPLAY_TOKEN_HEADER } from "../../shared/display-credentials.js";
import { actorOf } from "../../shared/guard.js";
import {
  boardOf,
  createDisplay,
  listDisplays,
  pairDisplay,
  pairingState,
  startPairing,
  unitsForDisplays,
  unpairDisplay,
} from "./service.js";

const PUBLIC = { access: "public" } as const;
const displayId = z.object({ id: recordIdSchema });
const tokenOf = (headers: Record<string, unknown>) => {
  const value = headers[DISPLAY_TOKEN_HEADER];
  return typeof value === "string" && value.length <= 200 ? value : undefined;
};

/**
 * Station turnout boards (issue 34). A screen signs in as a display of one unit with the token it
 * holds (the `X-Display-Token` header): no user session, so every member route refuses it, and these
 * routes give only its unit's board. Admins create displays and pair them by the screen's code.
 */
export async function displayRoutes(app: FastifyInstance): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();

  // The screen: a code to show, then whether an admin has paired it.
  r.post("/display/pairing", { config: PUBLIC }, async () => ({
    success: true,
    data: await startPairing(app.db),
  }));
  r.get("/display/pairing", { config: PUBLIC }, async (request) => ({
    success: true,
    data: await pairingState(app.db, tokenOf(request.headers) ?? ""),
  }));
  r.get("/display/board", { config: PUBLIC }, async (request) => {
    const display = await authenticateDisplay(app.db, tokenOf(request.headers));
    return {
      success: true,
      data: {
        ...(await boardOf(app.db, display)),
        map: { tile_url: app.config.map.tileUrl, attribution: app.config.map.tileAttribution },
      },
    };
  });

  // Admins.
  r.get("/admin/displays", async () => ({ success: true, data: await listDisplays(app.db) }));
  r.get("/admin/displays/units", async () => ({ success: true, data: await unitsForDisplays(app.db) }));
  r.post(
    "/admin/displays",
    {
      schema: {
        body: z.object({
          unit_id: recordIdSchema,
          name: z.string().trim().min(1, "Give the display a name.").max(80),
          idle_minutes: z.number().int().min(1).max(1440).optional(),
        }),
      },
    },
    async (request, reply) => {
      reply.code(201);
      return { success: true, data: await createDisplay(app.db, actorOf(request).userId, request.body) };
    },
  );
  r.post(
    "/admin/displays/:id/pair",
    { schema: { params: displayId, body: z.object({ code: z.string().trim().min(1).max(20) }) } },
    async (request) => ({
      success: true,
      data: await pairDisplay(app.services, request.params.id, request.body.code),
    }),
  );
  r.post("/admin/displays/:id/unpair", { schema: { params: displayId } }, async (request) => {
    await unpairDisplay(app.services, request.params.id, false);
    return { success: true };
  });
  r.delete("/admin/displays/:id", { schema: { params: displayId } }, async (request) => {
    await unpairDisplay(app.services, request.params.id, true);
    return { success: true };
  });
}
