import { FEED_VIEWS, type FeedView } from "@turnout/domain";
import { eq, inArray } from "drizzle-orm";
import type { FastifyInstance } from "fastify";
import { Server, type Socket } from "socket.io";
import { RedisLink } from "../cache/redis-link.js";
import { isConnectionFailure } from "../db/reachability.js";
import { deviceSessions, users } from "../db/schema.js";
import { AppError } from "../errors.js";
import { presentAlert } from "../shared/alerts/present.js";
import { unitsOf } from "../shared/alerts/recipients.js";
import { type Actor, resolveActor } from "../shared/guard.js";
import { unitsByCapcode } from "../shared/units.js";
import { AlertFanout, boundAlertQueue, REFRESH_EVENT } from "./alert-fanout.js";
import {
  endLostDisplays,
  onDisplayConnection,
  resolveDisplay,
  type SocketDisplay,
  signOutDisplays,
} from "./display-sockets.js";
import type { LiveEvents } from "./live-events.js";
import {
  ADMIN_ROOM,
  AgencyCache,
  agencyRoom,
  assignedAgencies,
  type Followed,
  followedRooms,
  followingRoom,
  isAdminNow,
  isFeedRoom,
  joinedNotice,
  mayJoinAgency,
  sessionRoom,
  unitRoom,
  unitsOfJob,
  userRoom,
} from "./rooms.js";

export { agencyRoom, unitRoom };

const UNAVAILABLE = "The service is temporarily unavailable. Please try again shortly.";

/**
 * A member's socket has `actor` (and `view`: what a page following its feed asked for, with
 * join-user-agencies); a station display's has `display` instead (display-sockets.ts).
 */
type SocketData = { actor?: Actor; view?: FeedView; display?: SocketDisplay };

/** The view a join-user-agencies payload asks for: `{ view: "agencies" }`, else the unit view (the default). */
function requestedView(payload: unknown): FeedView {
  const view = (payload as { view?: unknown } | null | undefined)?.view;
  return (FEED_VIEWS as readonly unknown[]).includes(view) ? (view as FeedView) : "units";
}

/**
 * The heartbeat (engine.io's ping): a client notices a server that stopped answering (hung, cut off)
 * at most LIVE_PING_INTERVAL_MS + LIVE_PING_TIMEOUT_MS after the last ping it received, 10 s (issue
 * 26; it was 25 + 20 s). The price: an idle polling screen's long-poll returns with a ping, and it
 * answers with a small POST, every 6 s instead of every 25 s, two requests where there were about
 * half of one (1,000 idle screens: ~330 requests/s instead of ~80). A client has 4 s to answer a
 * ping before the server drops it: a pong is one small POST, well within that on a slow mobile network.
 */
export const LIVE_PING_INTERVAL_MS = 6_000;
export const LIVE_PING_TIMEOUT_MS = 4_000;

/** `alerts:refresh` after a gap in the Redis link: events between instances may have been lost. */
export const GAP_REFRESH = { count: null, newest: null, reason: "gap" } as const;

/**
 * The socket.io gateway on the app's HTTP server (path /socket.io, polling only, SPEC 7). The token in
 * the handshake is verified here; what a client says about itself (userId, isAdmin) is never trusted.
 * With Redis, rooms span every server instance.
 */
export async function createLiveGateway(app: FastifyInstance): Promise<{ io: Server; events: LiveEvents }> {
  const io = new Server(app.server, {
    path: "/socket.io",
    transports: ["polling"],
    serveClient: false,
    pingInterval: LIVE_PING_INTERVAL_MS,
    pingTimeout: LIVE_PING_TIMEOUT_MS,
  });

  let link: RedisLink | null = null;
  if (app.config.redisUrl) {
    // Loaded only with Redis (several instances): a single instance never needs it. The link's
    // connections are bounded and their failures handled (cache/redis-link.ts): a publish that fails
    // while Redis is down is lost to the other instances, never an unhandled rejection, and the gap is
    // made good when Redis is back (refreshAfterGap).
    const { createAdapter } = await import("@socket.io/redis-adapter");
    link = new RedisLink(app.config.redisUrl, "live channel");
    link.useLogger(app.log);
    const pub = await link.connect("commands");
    const sub = await link.connect("subscriber");
    io.adapter(
      createAdapter(pub, sub, {
        key: `${app.config.redisPrefix}socket.io`,
        // fetchSockets across instances waits this long for the others' answers.
        requestsTimeout: 2_000,
      }),
    );
    link.on({ up: () => refreshAfterGap() });
  }

  /**
   * Redis is back after a gap: events published meanwhile between instances are lost, so every
   * screen (on every instance: this one's publishes may be what the others missed) is told to read
   * its feed again, as after a burst; and a session ended on another instance meanwhile is ended
   * here now (its `session-ended` may have been lost too).
   */
  const refreshAfterGap = () => {
    io.emit(REFRESH_EVENT, GAP_REFRESH);
    void Promise.all([endLostSessions(), endLostDisplays(app, io)]).catch((err: unknown) => {
      if (isConnectionFailure(err)) app.dbReachability.failed(err);
      else app.log.error({ err }, "live: could not check sessions after a gap");
    });
  };

  const endLostSessions = async () => {
    const local = await io.local.fetchSockets();
    const ids = [...new Set(local.flatMap((s) => (s.data as SocketData).actor?.sessionId ?? []))];
    if (ids.length === 0) return;
    const rows = await app.db
      .select({
        id: deviceSessions.id,
        endedAt: deviceSessions.endedAt,
        endReason: deviceSessions.endReason,
        expiresAt: deviceSessions.expiresAt,
        isActive: users.isActive,
      })
      .from(deviceSessions)
      .innerJoin(users, eq(users.id, deviceSessions.userId))
      .where(inArray(deviceSessions.id, ids));
    const byId = new Map(rows.map((r) => [r.id, r]));
    for (const id of ids) {
      const row = byId.get(id);
      const ended = !row || row.endedAt !== null || row.expiresAt.getTime() <= Date.now() || !row.isActive;
      if (!ended) continue;
      const reason =
        row && (row.endReason === "admin" || !row.isActive) ? "logged_out_by_admin" : "terminated";
      io.local.to(sessionRoom(id)).emit("session-ended", { reason });
      io.local.in(sessionRoom(id)).disconnectSockets(true);
    }
  };

  io.use(async (socket, next) => {
    const auth = (socket.handshake.auth ?? {}) as { token?: unknown; displayToken?: unknown };
    const data = socket.data as SocketData;
    const display = typeof auth.displayToken === "string" && auth.displayToken !== "";
    if (!display && (typeof auth.token !== "string" || auth.token === ""))
      return next(Object.assign(new Error("Please sign in."), { data: { reason: "missing" } }));
    try {
      if (display) data.display = await resolveDisplay(app.db, auth.displayToken as string);
      else data.actor = await resolveActor(app, auth.token as string);
      next();
    } catch (err) {
      // The database out of reach says nothing about the token: the client is not told it is invalid.
      if (isConnectionFailure(err)) {
        app.dbReachability.failed(err);
        return next(Object.assign(new Error(UNAVAILABLE), { data: { reason: "unavailable" } }));
      }
      const e = err instanceof AppError ? err : new AppError(401, "unauthorized", "Please sign in.");
      next(Object.assign(new Error(e.message), { data: { reason: e.extra.reason ?? "invalid" } }));
    }
  });

  io.on("connection", (socket: Socket) => {
    const { actor, display } = socket.data as SocketData;
    boundAlertQueue(socket);
    if (display) return onDisplayConnection(socket, display);
    if (!actor) return socket.disconnect(true);
    void socket.join([userRoom(actor.userId), sessionRoom(actor.sessionId)]);

    /**
     * A handler that reads the database: its failure (an outage, most likely) is told to the client and
     * logged, never left as an unhandled rejection, which would end the process.
     */
    const handle =
      <A extends unknown[]>(event: string, handler: (...args: A) => Promise<void>) =>
      (...args: A) => {
        handler(...args).catch((err: unknown) => {
          if (isConnectionFailure(err)) app.dbReachability.failed(err);
          else app.log.error({ err, event }, "live: socket handler failed");
          socket.emit("error", { message: isConnectionFailure(err) ? UNAVAILABLE : "Something went wrong." });
        });
      };

    socket.on(
      "join-user-agencies",
      handle("join-user-agencies", async (payload: unknown) => {
        const view = requestedView(payload);
        (socket.data as SocketData).view = view;
        const followed = await followedRooms(app, actor.userId, view);
        for (const r of [...socket.rooms].filter(isFeedRoom)) await socket.leave(r);
        await socket.join([...followed.rooms, followingRoom(actor.userId)]);
        socket.emit("joined-user-agencies", joinedNotice(followed));
      }),
    );

    socket.on(
      "leave-user-agencies",
      handle("leave-user-agencies", async () => {
        for (const r of [...socket.rooms].filter(isFeedRoom)) await socket.leave(r);
        await socket.leave(followingRoom(actor.userId));
      }),
    );

    socket.on(
      "join-agency",
      handle("join-agency", async (agencyId: unknown) => {
        const id = Number(agencyId);
        if (!Number.isSafeInteger(id) || !(await mayJoinAgency(app, actor, id))) {
          socket.emit("error", { message: "You are not assigned to that agency." });
          return;
        }
        await socket.join(agencyRoom(id));
      }),
    );

    socket.on(
      "leave-agency",
      handle("leave-agency", async (agencyId: unknown) => {
        await socket.leave(agencyRoom(Number(agencyId)));
      }),
    );

    socket.on(
      "join-admin",
      handle("join-admin", async () => {
        if (!(await isAdminNow(app, actor.userId))) {
          socket.emit("error", { message: "Admin access required." });
          return;
        }
        await socket.join(ADMIN_ROOM);
        socket.emit("joined-admin", { success: true });
      }),
    );

    socket.on(
      "leave-admin",
      handle("leave-admin", async () => {
        await socket.leave(ADMIN_ROOM);
      }),
    );

    socket.on("test-event", (payload: unknown, ack?: unknown) => {
      const reply = { received: payload ?? null, at: new Date().toISOString() };
      if (typeof ack === "function") ack(reply);
      else socket.emit("test-event", reply);
    });
  });

  const agencyCache = new AgencyCache(app);

  // Bursts are coalesced per room here, on the instance that committed them (see alert-fanout.ts).
  const fanout = new AlertFanout((room, event, payload) => io.to(room).emit(event, payload));

  const events: LiveEvents = {
    alertsCommitted(items) {
      void (async () => {
        const byId = await agencyCache.get();
        const unitsOfCapcode = await unitsByCapcode(
          app.db,
          items.flatMap((i) => i.capcodeIds),
        );
        for (const { alert, agencyIds, capcodeIds, isNew } of items) {
          const paged = unitsOf(
            capcodeIds.map((capcodeId) => ({ capcodeId })),
            unitsOfCapcode,
            null,
          );
          for (const id of new Set(agencyIds)) {
            // Each agency's and unit's members see the units of that agency only.
            const theirs = paged.filter((u) => u.agencyId === id);
            const present = () => presentAlert(alert, byId.get(id), theirs);
            fanout.offer(agencyRoom(id), alert.id, present);
            for (const unit of theirs) fanout.offer(unitRoom(unit.id), alert.id, present);
          }
          if (isNew)
            fanout.offer(ADMIN_ROOM, alert.id, () => presentAlert(alert, byId.get(alert.agencyId), paged));
        }
      })().catch((err: unknown) => app.log.error({ err }, "live: could not publish alerts"));
    },
    responsesChanged({ jobAlertId, agencyIds, responding, not_available }) {
      const payload = { job_alert_id: jobAlertId, responding, not_available };
      const rooms = [...agencyIds.map(agencyRoom), ADMIN_ROOM];
      io.to(rooms).emit("alert:responses", payload);
      // The rooms of the job's units too (a station board, a member in the unit view), each socket once.
      void unitsOfJob(app.db, jobAlertId)
        .then((units) => {
          if (units.length) io.to(units.map(unitRoom)).except(rooms).emit("alert:responses", payload);
        })
        .catch((err: unknown) => app.log.error({ err }, "live: could not tell the units of a job's answers"));
    },
    displaysSignedOut(displayIds, keep) {
      void signOutDisplays(io, displayIds, keep ?? null).catch((err: unknown) =>
        app.log.error({ err }, "live: could not sign a display's screen out"),
      );
    },
    feedback(event) {
      // One emit to both rooms: a socket in both (an admin's own conversation) gets it once.
      const rooms = "ownerId" in event ? [ADMIN_ROOM, userRoom(event.ownerId)] : [ADMIN_ROOM];
      io.to(rooms).emit(event.name, event.payload);
    },
    receiversChanged(receiverIds) {
      io.to(ADMIN_ROOM).emit("receivers:changed", { receiver_ids: receiverIds });
    },
    pendingRulesChanged(pendingAlerts) {
      io.to(ADMIN_ROOM).emit("user-alerts:pending", { pending_alerts: pendingAlerts });
    },
    sessionsEnded(sessionIds, reason) {
      for (const id of sessionIds) {
        io.to(sessionRoom(id)).emit("session-ended", { reason });
        io.in(sessionRoom(id)).disconnectSockets(true);
      }
    },
    userAccessChanged(userId) {
      void (async () => {
        const isAdmin = await isAdminNow(app, userId);
        const assigned = new Set((await assignedAgencies(app, userId)).map((a) => a.id));
        const followed = new Map<FeedView, Followed>();
        const roomsFor = async (view: FeedView) => {
          if (!followed.has(view)) followed.set(view, await followedRooms(app, userId, view));
          return followed.get(view)!;
        };
        // fetchSockets reaches the user's sockets on every instance (through the Redis adapter);
        // while Redis is down, this instance's at least.
        const sockets = await io
          .in(userRoom(userId))
          .fetchSockets()
          .catch(() => io.local.in(userRoom(userId)).fetchSockets());
        for (const s of sockets) {
          const following = s.rooms.has(followingRoom(userId));
          const wanted = following ? await roomsFor((s.data as SocketData).view ?? "units") : null;
          for (const room of [...s.rooms]) {
            if (!isFeedRoom(room)) continue;
            const keep = wanted
              ? wanted.rooms.includes(room)
              : room.startsWith("agency:") && (isAdmin || assigned.has(Number(room.slice("agency:".length))));
            if (!keep) s.leave(room);
          }
          if (!isAdmin && s.rooms.has(ADMIN_ROOM)) s.leave(ADMIN_ROOM);
          if (wanted) {
            s.join(wanted.rooms);
            s.emit("joined-user-agencies", joinedNotice(wanted));
          }
        }
      })().catch((err: unknown) => app.log.error({ err }, "live: could not update a user's rooms"));
    },
  };

  // A graceful shutdown (a restart, an upgrade) closes each client's transport, never its socket.io
  // session: a client told DISCONNECT by the server (disconnectSockets) does not reconnect, while one
  // whose transport closed reconnects by itself, through nginx to another instance (issue 29). It also
  // ends the long-polls, which would hold the shutdown open for up to the ping interval. Only the
  // engine: closing the HTTP server is Fastify's job, and it lets in-flight requests finish.
  app.addHook("preClose", async () => {
    fanout.close();
    io.engine.close();
    await link?.close();
  });

  return { io, events };
}
