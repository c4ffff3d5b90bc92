import { unitIdsSchema, unitInputSchema } from "@turnout/domain";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { idParamsSchema, recordIdSchema } from "../../request-schemas.js";
import { assignedAgencyIds } from "../../shared/alerts/scope.js";
import { actorOf } from "../../shared/guard.js";
import { requestMeta } from "../../shared/request-meta.js";
import { presentAdminUnit, presentNearbyUnit, presentUnitRow } from "./present.js";
import {
  createUnit,
  deleteUnit,
  homeOf,
  listAgencyUnits,
  memberView,
  setOwnUnits,
  setUnitCapcodes,
  setUserUnits,
  unitsNear,
  updateUnit,
  userUnitsForAdmin,
} from "./service.js";

const unitIdsBody = z.object({ unit_ids: unitIdsSchema });
const capcodeIdsBody = z.object({
  capcode_ids: z.array(recordIdSchema, "capcode_ids must be a list").max(500, "at most 500 capcodes"),
});
const placeQuery = {
  postcode: z
    .string()
    .regex(/^\d{4}$/, "postcode must be 4 digits")
    .optional(),
  suburb: z.string().trim().max(100, "suburb must be at most 100 characters").optional(),
  state: z.string().trim().toUpperCase().max(3, "state must be at most 3 letters").optional(),
  name: z.string().trim().max(100, "name must be at most 100 characters").optional(),
};

/**
 * Brigades and units (issue 26). Anyone: the units of a sign-up agency near a place (registration).
 * Members: their own units, and their agencies' units near them. Admins: units per agency, their
 * capcodes, and any user's units.
 */
export async function unitRoutes(app: FastifyInstance): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();

  r.get(
    "/units/nearby",
    {
      config: { access: "public" },
      schema: {
        querystring: z.object({
          agency: z
            .string()
            .trim()
            .min(1, "agency is required")
            .max(32, "agency must be at most 32 characters"),
          ...placeQuery,
        }),
      },
    },
    async (request) => {
      const { agency, name, ...place } = request.query;
      const found = await unitsNear(app.db, { agencyCode: agency, place, name });
      return { success: true, data: found.map(presentNearbyUnit) };
    },
  );

  r.get("/units/mine", async (request) => ({
    success: true,
    data: await memberView(app.db, actorOf(request).userId),
  }));

  r.put("/units/mine", { schema: { body: unitIdsBody } }, async (request) => {
    await setOwnUnits(app.services, actorOf(request), request.body.unit_ids);
    return { success: true, data: await memberView(app.db, actorOf(request).userId) };
  });

  r.get(
    "/units",
    { schema: { querystring: z.object({ agency_id: recordIdSchema.optional(), ...placeQuery }) } },
    async (request) => {
      const actor = actorOf(request);
      const { agency_id: agencyId, name, ...place } = request.query;
      const mine = await assignedAgencyIds(app.db, actor.userId);
      const agencyIds = agencyId === undefined ? mine : mine.filter((id) => id === agencyId);
      const near = place.postcode || place.suburb ? place : await homeOf(app.db, actor.userId);
      const found = await unitsNear(app.db, { agencyIds, place: near, name });
      return { success: true, data: found.map(presentNearbyUnit) };
    },
  );

  r.get("/admin/agencies/:id/units", { schema: { params: idParamsSchema } }, async (request) => ({
    success: true,
    data: (await listAgencyUnits(app.db, request.params.id)).map(presentAdminUnit),
  }));

  r.post(
    "/admin/agencies/:id/units",
    { schema: { params: idParamsSchema, body: unitInputSchema } },
    async (request, reply) => {
      const unit = await createUnit(
        app.services,
        actorOf(request),
        request.params.id,
        request.body,
        requestMeta(request),
      );
      return reply.status(201).send({ success: true, data: presentUnitRow(unit) });
    },
  );

  r.put(
    "/admin/units/:id",
    { schema: { params: idParamsSchema, body: unitInputSchema } },
    async (request) => ({
      success: true,
      data: presentUnitRow(
        await updateUnit(
          app.services,
          actorOf(request),
          request.params.id,
          request.body,
          requestMeta(request),
        ),
      ),
    }),
  );

  r.delete("/admin/units/:id", { schema: { params: idParamsSchema } }, async (request) => {
    await deleteUnit(app.services, actorOf(request), request.params.id, requestMeta(request));
    return { success: true, message: "Unit deleted." };
  });

  r.put(
    "/admin/units/:id/capcodes",
    { schema: { params: idParamsSchema, body: capcodeIdsBody } },
    async (request) => {
      await setUnitCapcodes(
        app.services,
        actorOf(request),
        request.params.id,
        request.body.capcode_ids,
        requestMeta(request),
      );
      return { success: true, message: "Capcodes saved." };
    },
  );

  r.get("/admin/users/:id/units", { schema: { params: idParamsSchema } }, async (request) => ({
    success: true,
    data: await userUnitsForAdmin(app.db, request.params.id),
  }));

  r.put(
    "/admin/users/:id/units",
    { schema: { params: idParamsSchema, body: unitIdsBody } },
    async (request) => ({
      success: true,
      data: await setUserUnits(
        app.services,
        actorOf(request),
        request.params.id,
        request.body.unit_ids,
        requestMeta(request),
      ),
    }),
  );
}
