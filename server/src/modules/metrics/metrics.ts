import { timingSafeEqual } from "node:crypto";
import { isIP } from "node:net";
import { RECEIVER_STATES } from "@turnout/domain";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import { rowsOf } from "../../db/rows.js";
import { AppError, notFound } from "../../errors.js";
import { DELIVERY_ALARMS, deliveryFigures } from "../../shared/delivery-alarms.js";
import { listReceiverRows } from "../../shared/receivers.js";

/**
 * Every metric GET /metrics serves, by name (the README lists them; a test checks each is there).
 * Besides these, prom-client's default Node metrics (process_*, nodejs_*), event-loop lag included.
 */
export const METRIC_NAMES = [
  "turnout_ingest_messages_total",
  "turnout_ingest_request_duration_seconds",
  "turnout_live_clients",
  "turnout_sms_queue",
  "turnout_push_queue",
  "turnout_rule_match_backlog",
  "turnout_receiver_state",
  "turnout_receiver_last_seen_age_seconds",
  "turnout_receiver_spool_depth",
  "turnout_receiver_dead_letters",
  "turnout_delivery_alarm",
  "turnout_delivery_failures",
  "turnout_db_pool_connections",
  "nodejs_eventloop_lag_seconds",
] as const;

const INGEST_ROUTES = new Set(["/api/ingest/messages", "/api/messages", "/api/ingest/heartbeat"]);

/** The metrics of one server instance (its own registry, so several apps in one process stay apart). */
export class ServerMetrics {
  readonly registry = new Registry();
  private readonly ingested: Counter<"outcome">;
  private readonly ingestDuration: Histogram<"route" | "status">;

  constructor(app: FastifyInstance) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    this.ingested = new Counter({
      name: "turnout_ingest_messages_total",
      help: "Pager messages received by ingest on this instance, by outcome (created, merged, duplicate, refused).",
      labelNames: ["outcome"],
      registers,
    });
    for (const outcome of ["created", "merged", "duplicate", "refused"]) this.ingested.inc({ outcome }, 0);
    this.ingestDuration = new Histogram({
      name: "turnout_ingest_request_duration_seconds",
      help: "Time to answer an ingest request (messages, PagerMon, heartbeat) on this instance.",
      labelNames: ["route", "status"],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
    new Gauge({
      name: "turnout_live_clients",
      help: "Live-channel (socket.io) clients connected to this instance.",
      registers,
      collect() {
        this.set(app.io?.engine?.clientsCount ?? 0);
      },
    });
    const db = app.db;
    new Gauge({
      name: "turnout_sms_queue",
      help: "SMS queue rows by status (pending, sending, sent, failed): depth and outcomes, all instances.",
      labelNames: ["status"],
      registers,
      async collect() {
        this.reset();
        for (const status of ["pending", "sending", "sent", "failed"]) this.set({ status }, 0);
        const rows = rowsOf<{ status: string; n: number }>(
          await db.execute("SELECT status, count(*)::int AS n FROM sms_queue GROUP BY status"),
        );
        for (const r of rows) this.set({ status: r.status }, r.n);
      },
    });
    new Gauge({
      name: "turnout_push_queue",
      help: "Push deliveries by status (pending, sending, sent, failed): depth and outcomes, all instances.",
      labelNames: ["status"],
      registers,
      async collect() {
        this.reset();
        for (const status of ["pending", "sending", "sent", "failed"]) this.set({ status }, 0);
        const rows = rowsOf<{ status: string; n: number }>(
          await db.execute("SELECT status, count(*)::int AS n FROM push_deliveries GROUP BY status"),
        );
        for (const r of rows) this.set({ status: r.status }, r.n);
      },
    });
    const windowMinutes = app.config.monitor.windowMinutes;
    let figures: Promise<Awaited<ReturnType<typeof deliveryFigures>>> | null = null;
    // One read of the delivery figures per scrape, shared by the gauges that show them.
    const currentFigures = () => {
      figures ??= deliveryFigures(db, windowMinutes).finally(() =>
        setImmediate(() => {
          figures = null;
        }),
      );
      return figures;
    };
    new Gauge({
      name: "turnout_rule_match_backlog",
      help: "Alerts waiting for keyword-rule matching, all instances.",
      registers,
      async collect() {
        this.set((await currentFigures()).rule_backlog);
      },
    });
    new Gauge({
      name: "turnout_delivery_failures",
      help: `SMS and push attempts that failed in the last ALARM_WINDOW_MINUTES (${windowMinutes}), all instances.`,
      labelNames: ["channel"],
      registers,
      async collect() {
        const f = await currentFigures();
        this.set({ channel: "sms" }, f.sms_failures);
        this.set({ channel: "push" }, f.push_failures);
      },
    });
    new Gauge({
      name: "turnout_delivery_alarm",
      help: "1 while a delivery alarm is raised (sms_failures, push_failures, rule_backlog), else 0.",
      labelNames: ["alarm"],
      registers,
      async collect() {
        this.reset();
        for (const alarm of DELIVERY_ALARMS) this.set({ alarm }, 0);
        const rows = rowsOf<{ key: string; state: string }>(
          await db.execute("SELECT key, state FROM monitor_alarms"),
        );
        for (const r of rows) this.set({ alarm: r.key }, r.state === "alarm" ? 1 : 0);
      },
    });

    // The receivers: one read per scrape for the four gauges.
    let receiverRows: ReturnType<typeof listReceiverRows> | null = null;
    const currentReceivers = () => {
      receiverRows ??= listReceiverRows(db).finally(() =>
        setImmediate(() => {
          receiverRows = null;
        }),
      ) as ReturnType<typeof listReceiverRows>;
      return receiverRows;
    };
    const label = (r: { id: number; name: string }) => ({ receiver: r.name, receiver_id: String(r.id) });
    new Gauge({
      name: "turnout_receiver_state",
      help: "1 for each receiver's current state (unknown, ok, late, down, quiet), 0 for the others.",
      labelNames: ["receiver", "receiver_id", "state"],
      registers,
      async collect() {
        this.reset();
        for (const r of await currentReceivers())
          for (const state of RECEIVER_STATES) this.set({ ...label(r), state }, r.state === state ? 1 : 0);
      },
    });
    new Gauge({
      name: "turnout_receiver_last_seen_age_seconds",
      help: "Seconds since each receiver's last heartbeat or page (absent for receivers never heard).",
      labelNames: ["receiver", "receiver_id"],
      registers,
      async collect() {
        this.reset();
        const now = Date.now();
        for (const r of await currentReceivers())
          if (r.lastSeenAt) this.set(label(r), (now - r.lastSeenAt.getTime()) / 1000);
      },
    });
    const statusGauge = (name: string, help: string, field: "spool_depth" | "dead_letters") =>
      new Gauge({
        name,
        help,
        labelNames: ["receiver", "receiver_id"],
        registers,
        async collect() {
          this.reset();
          for (const r of await currentReceivers()) {
            const value = (r.lastStatus as Record<string, unknown> | null)?.[field];
            if (typeof value === "number") this.set(label(r), value);
          }
        },
      });
    statusGauge(
      "turnout_receiver_spool_depth",
      "Messages waiting in each receiver's spool (last heartbeat).",
      "spool_depth",
    );
    statusGauge(
      "turnout_receiver_dead_letters",
      "Messages each receiver set aside (last heartbeat).",
      "dead_letters",
    );

    const client = (
      db as unknown as { $client?: { totalCount?: number; idleCount?: number; waitingCount?: number } }
    ).$client;
    const dbKind = app.dbKind;
    new Gauge({
      name: "turnout_db_pool_connections",
      help: "Database pool connections of this instance by state (total, idle, waiting requests); the embedded database has one.",
      labelNames: ["state"],
      registers,
      collect() {
        if (dbKind === "postgres" && client && typeof client.totalCount === "number") {
          this.set({ state: "total" }, client.totalCount);
          this.set({ state: "idle" }, client.idleCount ?? 0);
          this.set({ state: "waiting" }, client.waitingCount ?? 0);
        } else {
          this.set({ state: "total" }, 1);
          this.set({ state: "idle" }, 0);
          this.set({ state: "waiting" }, 0);
        }
      },
    });
  }

  /** Counts what one ingest call did (created, merged, duplicate per message; refused ones). */
  countIngest(results: readonly { status: string }[], refused: number): void {
    for (const r of results) this.ingested.inc({ outcome: r.status });
    if (refused > 0) this.ingested.inc({ outcome: "refused" }, refused);
  }

  /** Times an ingest request (called from onResponse). */
  observeRequest(route: string, status: number, seconds: number): void {
    if (INGEST_ROUTES.has(route)) this.ingestDuration.observe({ route, status: String(status) }, seconds);
  }
}

/** Loopback and private (RFC 1918, unique-local, link-local) addresses: a scraper on the same network. */
export function isPrivateAddress(ip: string): boolean {
  const v4 = ip.startsWith("::ffff:") ? ip.slice(7) : ip;
  if (isIP(v4) === 4) {
    const [a, b] = v4.split(".").map(Number) as [number, number];
    return (
      a === 127 ||
      a === 10 ||
      (a === 172 && b >= 16 && b <= 31) ||
      (a === 192 && b === 168) ||
      (a === 169 && b === 254)
    );
  }
  const lower = ip.toLowerCase();
  return lower === "::1" || lower.startsWith("fc") || lower.startsWith("fd") || lower.startsWith("fe80:");
}

function sameToken(presented: string, expected: string): boolean {
  const a = Buffer.from(presented);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

declare module "fastify" {
  interface FastifyInstance {
    /** The Prometheus metrics of this instance (issue 33). */
    metrics: ServerMetrics;
  }
}

/**
 * GET /metrics in the Prometheus text format (issue 33). With METRICS_TOKEN set it wants that bearer
 * token (401 otherwise); without, it answers only loopback and private addresses (404 to others, as if
 * it were not there). Call on the root instance before the routes: its timing hook sees every route.
 */
export function registerMetrics(app: FastifyInstance): void {
  const metrics = new ServerMetrics(app);
  app.decorate("metrics", metrics);
  app.addHook("onResponse", async (request: FastifyRequest, reply: FastifyReply) => {
    const url = request.routeOptions.url;
    if (url) metrics.observeRequest(url, reply.statusCode, reply.elapsedTime / 1000);
  });
  app.get("/metrics", { config: { access: "public" } }, async (request, reply) => {
    const token = app.config.metricsToken;
    if (token) {
      const auth = request.headers.authorization;
      const presented = auth ? /^Bearer\s+(\S+)$/i.exec(auth)?.[1] : undefined;
      if (!presented || !sameToken(presented, token)) {
        throw new AppError(401, "unauthorized", "A valid metrics token is required.");
      }
    } else if (!isPrivateAddress(request.ip)) {
      throw notFound("Not found");
    }
    reply.header("content-type", metrics.registry.contentType);
    reply.header("cache-control", "no-store");
    return metrics.registry.metrics();
  });
}
