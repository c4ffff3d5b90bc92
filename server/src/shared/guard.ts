import { MESSAGES } from "@turnout/domain";
import { eq, sql } from "drizzle-orm";
import type { FastifyInstance, FastifyRequest, onRequestHookHandler, RouteOptions } from "fastify";
import type { Database } from "../db/client.js";
import { deviceSessions, users } from "../db/schema.js";
import { AppError, forbidden } from "../errors.js";
import { touchSession } from "./sessions.js";
import { verifySessionToken } from "./tokens.js";

/** The signed-in user a request acts for. */
export type Actor = {
  userId: number;
  sessionId: string;
  isAdmin: boolean;
};

/** Why a token no longer opens a session; the web shows 'Session Ended' with the matching wording. */
export type SessionEndedReason = "expired" | "invalid" | "terminated" | "logged_out_by_admin";

/**
 * Who may call a route, declared as `config: { access }`:
 * - `user` (the default for every `/api` route): a signed-in user, else 401;
 * - `admin`: a signed-in admin, else 401 / 403; every `/api/admin/` route is `admin` whatever it declares;
 * - `public`: anyone (the route may check something else itself, e.g. an ingest key).
 * Routes outside `/api` (the web app) are public.
 */
export type RouteAccess = "public" | "user" | "admin";

declare module "fastify" {
  interface FastifyRequest {
    actor: Actor | null;
  }
  interface FastifyInstance {
    /** 401 unless the request carries a token of an active session. */
    authenticate: (request: FastifyRequest) => Promise<void>;
    /** As authenticate, then 403 unless the user is an admin. */
    requireAdmin: (request: FastifyRequest) => Promise<void>;
  }
  interface FastifyContextConfig {
    access?: RouteAccess;
  }
}

const REASON_MESSAGES: Record<SessionEndedReason, string> = {
  expired: MESSAGES.SESSION_EXPIRED,
  invalid: MESSAGES.SESSION_INVALID,
  terminated: MESSAGES.SESSION_INVALID,
  logged_out_by_admin: MESSAGES.LOGGED_OUT_BY_ADMIN,
};

export function sessionEnded(reason: SessionEndedReason): AppError {
  return new AppError(401, "unauthorized", REASON_MESSAGES[reason], { reason });
}

/** The bearer token of a request, if any. */
export function bearerToken(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (!header) return null;
  const match = /^Bearer\s+(\S+)$/i.exec(header);
  return match?.[1] ?? null;
}

/** The session and user a token names: every signed-in request's first query. */
function prepareSessionLookup(db: Database) {
  return db
    .select({
      userId: users.id,
      isAdmin: users.isAdmin,
      isActive: users.isActive,
      endedAt: deviceSessions.endedAt,
      endReason: deviceSessions.endReason,
      expiresAt: deviceSessions.expiresAt,
      sessionUserId: deviceSessions.userId,
    })
    .from(deviceSessions)
    .innerJoin(users, eq(users.id, deviceSessions.userId))
    .where(eq(deviceSessions.id, sql.placeholder("sessionId")))
    .prepare("session_lookup");
}

const sessionLookups = new WeakMap<Database, ReturnType<typeof prepareSessionLookup>>();

/**
 * The session lookup prepared once per database: its SQL is built once rather than at every request
 * (a third of a signed-in request's CPU in the server went to building SQL, bench/results/page-building.md).
 */
function sessionLookup(db: Database) {
  let lookup = sessionLookups.get(db);
  if (!lookup) {
    lookup = prepareSessionLookup(db);
    sessionLookups.set(db, lookup);
  }
  return lookup;
}

/**
 * Resolves a token to its actor. Every call checks the session row, so a session ended by logout,
 * force-logout or an admin stops working at once. Throws a 401 AppError naming the reason.
 */
export async function resolveActor(app: FastifyInstance, token: string): Promise<Actor> {
  const claims = await verifySessionToken(app.config.jwtSecret, token);
  if (claims === "expired") throw sessionEnded("expired");
  if (claims === "invalid") throw sessionEnded("invalid");
  const [row] = await sessionLookup(app.db).execute({ sessionId: claims.sessionId });
  if (!row || row.sessionUserId !== claims.userId) throw sessionEnded("invalid");
  if (row.endedAt) throw sessionEnded(row.endReason === "admin" ? "logged_out_by_admin" : "terminated");
  if (row.expiresAt.getTime() <= Date.now()) throw sessionEnded("expired");
  if (!row.isActive) throw sessionEnded("logged_out_by_admin");
  await touchSession(app.db, claims.sessionId);
  return { userId: row.userId, sessionId: claims.sessionId, isAdmin: row.isAdmin };
}

/**
 * The actor a request's token names, or null when it names none that is valid (no token, a bad one, a
 * session that ended): for public routes that treat a signed-in caller differently.
 */
export async function optionalActor(app: FastifyInstance, request: FastifyRequest): Promise<Actor | null> {
  const token = bearerToken(request);
  return token ? resolveActor(app, token).catch(() => null) : null;
}

/** The access a route gets: `/api/admin/` is always admin; other `/api` routes are signed-in unless declared. */
export function routeAccess(route: Pick<RouteOptions, "url" | "config">): RouteAccess {
  if (/^\/api\/admin(\/|$)/.test(route.url)) return "admin";
  if (!/^\/api(\/|$)/.test(route.url)) return "public";
  // Agency logos: plain files for <img> tags, which cannot send a token (see agencies/routes.ts).
  if (route.url.startsWith("/api/uploads/")) return "public";
  return (route.config as { access?: RouteAccess } | undefined)?.access ?? "user";
}

/**
 * Adds `request.actor`, the authenticate / requireAdmin checks, and runs the check each route's access
 * calls for as the first `onRequest` hook: before the body is read or anything is validated, so an
 * anonymous caller gets 401 and a user 403 without learning the route's schema. Routes are signed-in
 * by default, so a route added later is never public by accident. Register it before any route.
 */
export function registerAuthGuard(app: FastifyInstance): void {
  app.decorateRequest("actor", null);
  app.decorate("authenticate", async (request: FastifyRequest) => {
    const token = bearerToken(request);
    if (!token) throw new AppError(401, "unauthorized", "Please sign in.", { reason: "missing" });
    request.actor = await resolveActor(app, token);
  });
  app.decorate("requireAdmin", async (request: FastifyRequest) => {
    await app.authenticate(request);
    if (!request.actor?.isAdmin) throw forbidden("Admin access required.");
  });
  const checks: Record<Exclude<RouteAccess, "public">, onRequestHookHandler> = {
    user: async (request) => app.authenticate(request),
    admin: async (request) => app.requireAdmin(request),
  };
  app.addHook("onRoute", (route) => {
    const access = routeAccess(route);
    if (access === "public") return;
    const existing = route.onRequest ? [route.onRequest].flat() : [];
    route.onRequest = [checks[access], ...existing];
  });
}

/** The actor of a request that passed `authenticate`. */
export function actorOf(request: FastifyRequest): Actor {
  if (!request.actor) throw new AppError(401, "unauthorized", "Please sign in.");
  return request.actor;
}
