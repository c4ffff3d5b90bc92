import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { MAX_INT_ID, queryIntSchema, recordIdSchema, smsPhoneSchema } from "../../request-schemas.js";
import { actorOf } from "../../shared/guard.js";
import { requestMeta } from "../../shared/request-meta.js";
import { presentSession } from "../../shared/sessions.js";
import { presentAdminUser, presentUserAgency, USER_STATUSES } from "./present.js";
import { getAdminUser, listUserAgencies, listUserSessions, listUsers } from "./queries.js";
import {
  createUser,
  deleteUser,
  resetPwaBanner,
  setSessionLimit,
  setUserActive,
  terminateUserSessions,
  updateUser,
} from "./service.js";
import { addUserAgency, removeUserAgency, setUserAgencies } from "./user-agencies.js";

/** Most users one page lists (the Users tab asks for 1000, SPEC 9). */
export const USERS_MAX_LIMIT = 1000;
/** Largest per-user device-session limit an admin may set. */
export const MAX_SESSION_LIMIT = 20;

const nameSchema = (label: string) =>
  z
    .string(`${label} is required`)
    .trim()
    .min(1, `${label} is required`)
    .max(100, `${label} must be at most 100 characters`);

const agencyIdsSchema = z.array(recordIdSchema).max(100, "at most 100 agencies");

const userParams = z.object({ id: recordIdSchema });
const userAgencyParams = z.object({ id: recordIdSchema, agencyId: recordIdSchema });

const listQuery = z.object({
  limit: queryIntSchema("limit", 1, USERS_MAX_LIMIT).default(USERS_MAX_LIMIT),
  offset: queryIntSchema("offset", 0, MAX_INT_ID).default(0),
  search: z.string().max(100, "search must be at most 100 characters").optional(),
  // The web sends an empty value for 'any status'.
  status: z.enum([...USER_STATUSES, ""], `status must be one of ${USER_STATUSES.join(", ")}`).optional(),
});

const maxSessionsSchema = queryIntSchema("max_sessions", 1, MAX_SESSION_LIMIT).nullable();

/** A user an admin adds: their phone must be one Turnout texts (the welcome SMS, every sign-in code). */
const newUserBody = (phone: ReturnType<typeof smsPhoneSchema>) =>
  z.object({
    first_name: nameSchema("First name"),
    last_name: nameSchema("Last name"),
    phone,
    is_admin: z.boolean().optional(),
    agency_ids: agencyIdsSchema.optional(),
    max_sessions: maxSessionsSchema.optional(),
  });

const userChangesBody = (phone: ReturnType<typeof smsPhoneSchema>) =>
  z
    .object({
      first_name: nameSchema("First name").optional(),
      last_name: nameSchema("Last name").optional(),
      phone: z.optional(phone),
      is_admin: z.boolean().optional(),
    })
    .refine((b) => Object.values(b).some((v) => v !== undefined), {
      message: "Send at least one of first_name, last_name, phone, is_admin.",
    });

/** SPEC 7 'Admin: users' (issue 11): accounts, their sessions and agencies, install-banner resets. Admins only. */
export async function userRoutes(app: FastifyInstance): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();

  r.get("/admin/users", { schema: { querystring: listQuery } }, async (request) => {
    const { limit, offset, search, status } = request.query;
    const page = await listUsers(app.db, { limit, offset, search, status: status || undefined });
    return { success: true, data: page.users.map(presentAdminUser), total: page.total };
  });

  const smsPhone = smsPhoneSchema(app.config.smsAllowedCountries);
  r.post("/admin/users", { schema: { body: newUserBody(smsPhone) } }, async (request, reply) => {
    const b = request.body;
    const user = await createUser(
      app.services,
      actorOf(request),
      {
        firstName: b.first_name,
        lastName: b.last_name,
        phone: b.phone,
        isAdmin: b.is_admin,
        agencyIds: b.agency_ids,
        maxSessions: b.max_sessions,
      },
      requestMeta(request),
    );
    return reply.status(201).send({ success: true, data: presentAdminUser(user) });
  });

  r.post(
    "/admin/users/pwa-banner/reset",
    {
      schema: {
        body: z.object({ user_ids: z.array(recordIdSchema).min(1, "choose at least one user").max(10_000) }),
      },
    },
    async (request) => {
      const ids = [...new Set(request.body.user_ids)];
      const reset = await resetPwaBanner(app.services, actorOf(request), ids, requestMeta(request));
      return { success: true, data: { reset } };
    },
  );

  r.post("/admin/users/pwa-banner/reset-all", async (request) => {
    const reset = await resetPwaBanner(app.services, actorOf(request), "all", requestMeta(request));
    return { success: true, data: { reset } };
  });

  r.get("/admin/users/:id", { schema: { params: userParams } }, async (request) => {
    return { success: true, data: presentAdminUser(await getAdminUser(app.db, request.params.id)) };
  });

  r.put(
    "/admin/users/:id",
    { schema: { params: userParams, body: userChangesBody(smsPhone) } },
    async (request) => {
      const b = request.body;
      const user = await updateUser(
        app.services,
        actorOf(request),
        request.params.id,
        { firstName: b.first_name, lastName: b.last_name, phone: b.phone, isAdmin: b.is_admin },
        requestMeta(request),
      );
      return { success: true, data: presentAdminUser(user) };
    },
  );

  r.delete("/admin/users/:id", { schema: { params: userParams } }, async (request) => {
    await deleteUser(app.services, actorOf(request), request.params.id, requestMeta(request));
    return { success: true, message: "User deleted." };
  });

  r.patch(
    "/admin/users/:id/toggle-active",
    { schema: { params: userParams, body: z.object({ is_active: z.boolean().optional() }).nullish() } },
    async (request) => {
      const user = await setUserActive(
        app.services,
        actorOf(request),
        request.params.id,
        request.body?.is_active,
        requestMeta(request),
      );
      return { success: true, data: presentAdminUser(user) };
    },
  );

  r.put(
    "/admin/users/:id/session-limits",
    { schema: { params: userParams, body: z.object({ max_sessions: maxSessionsSchema }) } },
    async (request) => {
      const user = await setSessionLimit(
        app.services,
        actorOf(request),
        request.params.id,
        request.body.max_sessions,
        requestMeta(request),
      );
      return { success: true, data: presentAdminUser(user) };
    },
  );

  r.get("/admin/users/:id/sessions", { schema: { params: userParams } }, async (request) => {
    const sessions = await listUserSessions(app.db, request.params.id);
    return { success: true, data: sessions.map((s) => presentSession(s)) };
  });

  r.post(
    "/admin/users/:id/sessions/terminate",
    {
      schema: {
        params: userParams,
        body: z.object({ session_id: z.string().uuid("Unknown session").optional() }).nullish(),
      },
    },
    async (request) => {
      const terminated = await terminateUserSessions(
        app.services,
        actorOf(request),
        request.params.id,
        request.body?.session_id,
        requestMeta(request),
      );
      return { success: true, data: { terminated } };
    },
  );

  r.get("/admin/users/:id/agencies", { schema: { params: userParams } }, async (request) => {
    const rows = await listUserAgencies(app.db, request.params.id);
    return { success: true, data: rows.map(presentUserAgency) };
  });

  r.post(
    "/admin/users/:id/agencies",
    { schema: { params: userParams, body: z.object({ agency_id: recordIdSchema }) } },
    async (request) => {
      const rows = await addUserAgency(
        app.services,
        actorOf(request),
        request.params.id,
        request.body.agency_id,
        requestMeta(request),
      );
      return { success: true, data: rows.map(presentUserAgency) };
    },
  );

  r.put(
    "/admin/users/:id/agencies",
    { schema: { params: userParams, body: z.object({ agency_ids: agencyIdsSchema }) } },
    async (request) => {
      const rows = await setUserAgencies(
        app.services,
        actorOf(request),
        request.params.id,
        request.body.agency_ids,
        requestMeta(request),
      );
      return { success: true, data: rows.map(presentUserAgency) };
    },
  );

  r.delete(
    "/admin/users/:id/agencies/:agencyId",
    { schema: { params: userAgencyParams } },
    async (request) => {
      const rows = await removeUserAgency(
        app.services,
        actorOf(request),
        request.params.id,
        request.params.agencyId,
        requestMeta(request),
      );
      return { success: true, data: rows.map(presentUserAgency) };
    },
  );
}
