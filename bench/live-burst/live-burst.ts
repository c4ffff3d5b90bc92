/**
 * Live delivery under a burst (issue 14): 1,000 signed-in polling clients (socket.io-client, one child
 * process) on one server instance; first ordinary traffic (single alerts 1 s apart: how long until
 * every entitled client has each one), then a receiver's spool replayed through ingest (10,000
 * messages in batches of 100, one batch after another as the reader sends them). The clients behave
 * like the web app: a `new-alert` is shown, an `alerts:refresh` shows its `newest` and, once the burst
 * has settled, reads the feed's first page (GET /api/alerts/search). Measured: the server's RSS
 * (sampled every 250 ms), the time from the end of the replay until each client has seen the newest
 * alert it is entitled to (live or in a fetched page), and the events and fetches per client.
 *
 *   npx tsx bench/live-burst/live-burst.ts
 *   BENCH_CLIENTS=1000 BENCH_REPLAY=10000 BENCH_BATCH=100 BENCH_SINGLES=20 BENCH_REDIS=1 npx tsx bench/live-burst/live-burst.ts
 *
 * DATABASE_URL defaults to postgres://postgres@127.0.0.1:5432/test (a scratch database is created and
 * dropped). BENCH_REDIS=1 (the default) gives the server a local Redis, so every event goes through
 * the socket.io Redis adapter as in a multi-instance deployment; BENCH_REDIS=0 runs without.
 * BENCH_NGINX=1 puts Debian's nginx with the shipped configuration (deploy/nginx) in front of the
 * server, as a deployment has it: the clients and the replay reach the server through it.
 */
import { fork } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { monitorEventLoopDelay } from "node:perf_hooks";
import pg from "pg";
import { io, type Socket } from "socket.io-client";
import { startProxy } from "../../e2e/support/nginx.js";
import { createAgencies, weightedPick } from "../server/lib/agencies.js";
import { browserConnections, type ClientSpec, createBenchClients } from "../server/lib/clients.js";
import {
  environment,
  log,
  ms,
  onExit,
  percentile,
  runMain,
  scratchDatabase,
  sleep,
  startServer,
  stopChild,
  table,
} from "../server/lib/common.js";
import { PagerTraffic, rng } from "../server/lib/messages.js";

const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 1000);
const REPLAY = Number(process.env.BENCH_REPLAY ?? 10_000);
const BATCH = Number(process.env.BENCH_BATCH ?? 100);
const SINGLES = Number(process.env.BENCH_SINGLES ?? 20);
const NGINX = process.env.BENCH_NGINX === "1";
const ADMINS = 5;
const KEY = "bench-burst-ingest-key-0123456789";
const JWT_SECRET = randomBytes(32).toString("base64url");
// As the web app waits after an alerts:refresh (web/src/features/alerts/use-live-channel.ts).
const SETTLE_MS = 2_000;
const JITTER_MS = 5_000;
const MAX_WAIT_MS = 30_000;

const now = () => performance.timeOrigin + performance.now();

/**
 * What engine.io says about a disconnect beside its reason: for "transport error" the failed request
 * ("xhr poll error", "xhr post error") and its HTTP status or network error.
 */
function describe(details: unknown): string {
  if (!(details instanceof Error)) return "";
  const d = (details as Error & { description?: unknown }).description;
  const why = d instanceof Error ? ((d as NodeJS.ErrnoException).code ?? d.message) : d;
  // engine.io answers a request it refuses with { code, message }: "Session ID unknown", ...
  const body = (details as Error & { context?: { responseText?: unknown } }).context?.responseText;
  const said = typeof body === "string" && body.length > 0 ? ` ${body.slice(0, 80)}` : "";
  return ` (${details.message}${why === undefined ? "" : ` ${String(why)}`}${said})`;
}

type Counts = {
  newAlerts: number;
  refreshes: number;
  fetches: number;
  fetchErrors: number;
  drops: number;
  /** Why fetches failed and sockets disconnected (status or reason -> how often). */
  why: Record<string, number>;
};
const noCounts = (): Counts => ({
  newAlerts: 0,
  refreshes: 0,
  fetches: 0,
  fetchErrors: 0,
  drops: 0,
  why: {},
});
type ToClients =
  | { type: "connect"; url: string; clients: ClientSpec[] }
  | { type: "reset-counts" }
  | { type: "seen"; wanted: { client: number; ids: number[] }[] }
  | { type: "close" };
type FromClients =
  | { type: "ready"; connected: number; failed: string[] }
  | { type: "counts"; counts: Counts[] }
  | {
      type: "seen";
      seen: { client: number; id: number; at: number | null }[];
      counts: Counts[];
      /** The clients' own process: how late its event loop ran since the counts were reset (ms). */
      loopDelay?: { p99: number; max: number };
    };

/** One web-app-like client: what it has seen (alert id -> first time), and its counts. */
class Client {
  readonly seen = new Map<number, number>();
  counts: Counts = noCounts();
  private timer: NodeJS.Timeout | undefined;
  private deadline = 0;
  socket!: Socket;

  constructor(
    private readonly url: string,
    private readonly spec: ClientSpec,
  ) {}

  private note(why: string) {
    this.counts.why[why] = (this.counts.why[why] ?? 0) + 1;
  }

  private see(id: unknown) {
    if (typeof id === "number" && !this.seen.has(id)) this.seen.set(id, now());
  }

  async connect(): Promise<void> {
    const socket = io(this.url, {
      path: "/socket.io",
      transports: ["polling"],
      auth: { token: this.spec.token },
      ...browserConnections(),
      timeout: 30_000,
      reconnectionDelay: 2_000,
      reconnectionDelayMax: 10_000,
    });
    this.socket = socket;
    socket.on("new-alert", (a: { id: number }) => {
      this.counts.newAlerts += 1;
      this.see(a.id);
    });
    socket.on("alerts:refresh", (r: { count: number; newest?: { id: number } }) => {
      this.counts.refreshes += 1;
      this.see(r.newest?.id);
      if (r.count > 1) this.scheduleFetch();
    });
    socket.on("disconnect", (reason, details) => {
      this.counts.drops += 1;
      this.note(`disconnect: ${reason}${describe(details)}`);
    });
    let connectedBefore = false;
    socket.on("connect", () => {
      socket.emit("join-user-agencies");
      if (this.spec.admin) socket.emit("join-admin");
      // As the web app does after a reconnect: read the first page for what was missed.
      if (connectedBefore) void this.fetchFirstPage();
      connectedBefore = true;
    });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("connect timeout")), 60_000);
      socket.once("joined-user-agencies", () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  private scheduleFetch() {
    const at = Date.now();
    if (this.timer === undefined) this.deadline = at + MAX_WAIT_MS;
    clearTimeout(this.timer);
    const wait = Math.min(SETTLE_MS + Math.random() * JITTER_MS, this.deadline - at);
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        void this.fetchFirstPage();
      },
      Math.max(0, wait),
    );
  }

  private async fetchFirstPage() {
    this.counts.fetches += 1;
    try {
      const q = `limit=50&grouped=true${this.spec.admin ? "&admin_context=true" : ""}`;
      const res = await fetch(`${this.url}/api/alerts/search?${q}`, {
        headers: { authorization: `Bearer ${this.spec.token}` },
      });
      if (!res.ok) throw new Error(String(res.status));
      const body = (await res.json()) as { data: { messages: { id: number }[] }[] };
      for (const group of body.data) for (const m of group.messages) this.see(m.id);
    } catch (err) {
      this.counts.fetchErrors += 1;
      this.note(`fetch: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
}

function clientProcess(): void {
  const clients: Client[] = [];
  // A busy harness looks like a slow server (late pongs, late polls): its own delay is reported beside.
  const delay = monitorEventLoopDelay({ resolution: 20 });
  delay.enable();
  process.on("message", (m: ToClients) => {
    const send = (reply: FromClients) => process.send!(reply);
    if (m.type === "connect") {
      void (async () => {
        const failed: string[] = [];
        for (let i = 0; i < m.clients.length; i += 25) {
          await Promise.all(
            m.clients.slice(i, i + 25).map(async (spec) => {
              const c = new Client(m.url, spec);
              clients[spec.index] = c;
              await c.connect().catch((err: Error) => failed.push(`${spec.index}: ${err.message}`));
            }),
          );
        }
        send({ type: "ready", connected: m.clients.length - failed.length, failed });
      })();
    } else if (m.type === "reset-counts") {
      for (const c of clients) if (c) c.counts = noCounts();
      delay.reset();
      send({ type: "counts", counts: [] });
    } else if (m.type === "seen") {
      send({
        type: "seen",
        seen: m.wanted.flatMap(({ client, ids }) =>
          ids.map((id) => ({ client, id, at: clients[client]?.seen.get(id) ?? null })),
        ),
        counts: clients.map((c) => c.counts),
        loopDelay: { p99: delay.percentile(99) / 1e6, max: delay.max / 1e6 },
      });
    } else {
      for (const c of clients) c?.socket.disconnect();
      setTimeout(() => process.exit(0), 200);
    }
  });
  process.on("disconnect", () => process.exit(0));
}

function clientChild() {
  const child = fork(import.meta.filename, ["--clients"], {
    execArgv: ["--import", "tsx"],
    stdio: "inherit",
  });
  const next = <T extends FromClients["type"]>(type: T, timeoutMs = 300_000) =>
    new Promise<Extract<FromClients, { type: T }>>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`client process: no ${type}`)), timeoutMs);
      const onMessage = (m: FromClients) => {
        if (m.type !== type) return;
        clearTimeout(timer);
        child.off("message", onMessage);
        resolve(m as Extract<FromClients, { type: T }>);
      };
      child.on("message", onMessage);
    });
  const ask = <T extends FromClients["type"]>(message: ToClients, type: T) => {
    const reply = next(type);
    child.send(message);
    return reply;
  };
  return { child, ask };
}

/** Server RSS in MB, from /proc. */
function rssMb(pid: number): number {
  const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? Number.NaN);
  return kb / 1024;
}

async function main() {
  const scratch = await scratchDatabase();
  const redisUrl = process.env.BENCH_REDIS !== "0" ? process.env.REDIS_URL || "redis://127.0.0.1:6379" : null;
  if (redisUrl && !/^redis:\/\/(127\.0\.0\.1|localhost)[:/]/.test(redisUrl))
    throw new Error("benchmarks only use a local Redis");
  const server = await startServer(scratch.url, {
    INGEST_API_KEY: KEY,
    JWT_SECRET,
    ...(redisUrl
      ? { REDIS_URL: redisUrl, REDIS_PREFIX: `turnout-bench:${randomBytes(4).toString("hex")}:` }
      : {}),
  });
  const pid = server.child.pid!;
  const rss: { at: number; mb: number; phase: string }[] = [];
  let phase = "idle";
  rss.push({ at: now(), mb: rssMb(pid), phase });
  const sampler = setInterval(() => rss.push({ at: now(), mb: rssMb(pid), phase }), 250);
  log(`server at ${server.url} (pid ${pid})${redisUrl ? " with the Redis adapter" : ""}`);
  // Each client holds a long-poll and sometimes a pong or a read: three connections to the worker
  // and as many to the server at most.
  const proxy = NGINX
    ? await startProxy([new URL(server.url).host], { workerConnections: CLIENTS * 6 + 1024 })
    : null;
  const url = proxy?.url ?? server.url;
  if (proxy) {
    // Stopped on the way out whatever happens, as the server is (a failed run left nginx running).
    onExit(proxy.stop);
    log(`nginx at ${proxy.url} in front of it`);
  }

  const db = new pg.Client({ connectionString: scratch.url });
  await db.connect();
  const agencies = await createAgencies(db);
  const agencyOfCapcode = new Map(agencies.flatMap((a) => a.capcodes.map((c) => [c.capcode, a.id] as const)));
  const { specs, agencyIdsByClient } = await createBenchClients(db, agencies, {
    count: CLIENTS,
    admins: ADMINS,
    jwtSecret: JWT_SECRET,
  });

  const { child, ask } = clientChild();
  phase = "connect";
  const c0 = now();
  const ready = await ask({ type: "connect", url, clients: specs }, "ready");
  log(`${ready.connected} clients connected and joined in ${((now() - c0) / 1000).toFixed(1)} s`);
  if (ready.failed.length) log(`failed: ${ready.failed.slice(0, 5).join("; ")}`);
  await sleep(2_000);
  const entitled = (client: number, agencyIds: number[]) =>
    specs[client]!.admin || agencyIdsByClient[client]!.some((id) => agencyIds.includes(id));

  const traffic = new PagerTraffic(11);
  const random = rng(11);
  const capcodeFor = () => {
    const a = weightedPick(agencies, (x) => x.weight, random);
    return a.capcodes[Math.floor(random() * a.capcodes.length)]!.capcode;
  };
  const post = async (messages: { capcode: string; message: string; timestamp?: number }[]) => {
    const res = await fetch(`${url}/api/ingest/messages`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${KEY}` },
      body: JSON.stringify({ messages }),
    });
    const body = (await res.json()) as { data: { id: number }[] };
    if (res.status !== 200) throw new Error(`ingest ${res.status}: ${JSON.stringify(body).slice(0, 300)}`);
    return body.data.map((d) => d.id);
  };

  // 1. Ordinary traffic: single alerts 1 s apart, each to one agency.
  phase = "singles";
  const singles: { id: number; agencyIds: number[]; repliedAt: number }[] = [];
  for (let i = 0; i < SINGLES; i++) {
    const capcode = capcodeFor();
    const [id] = await post([{ capcode, message: traffic.next().raw }]);
    singles.push({ id: id!, agencyIds: [agencyOfCapcode.get(capcode)!], repliedAt: now() });
    await sleep(1_000);
  }
  await sleep(2_000);
  const singleWanted = specs.map((s) => ({
    client: s.index,
    ids: singles.filter((x) => entitled(s.index, x.agencyIds)).map((x) => x.id),
  }));
  const singleSeen = await ask({ type: "seen", wanted: singleWanted }, "seen");
  const singleDelay: number[] = [];
  let singleMissing = 0;
  for (const s of singleSeen.seen) {
    if (s.at === null) singleMissing += 1;
    else singleDelay.push(s.at - singles.find((x) => x.id === s.id)!.repliedAt);
  }
  await ask({ type: "reset-counts" }, "counts");

  // 2. The replay: pages spooled over the last hour, sent in batches one after another.
  phase = "replay";
  const newestByAgency = new Map<number, number>();
  const start = Date.now() - 3_600_000;
  const r0 = now();
  for (let sent = 0; sent < REPLAY; sent += BATCH) {
    const messages = Array.from({ length: Math.min(BATCH, REPLAY - sent) }, (_, i) => ({
      capcode: capcodeFor(),
      message: traffic.next().raw,
      timestamp: Math.floor((start + ((sent + i) / REPLAY) * 3_500_000) / 1000),
    }));
    const ids = await post(messages);
    ids.forEach((id, i) => {
      const agency = agencyOfCapcode.get(messages[i]!.capcode)!;
      newestByAgency.set(agency, Math.max(newestByAgency.get(agency) ?? 0, id));
    });
  }
  const replayEnd = now();
  log(`replay of ${REPLAY} messages took ${((replayEnd - r0) / 1000).toFixed(1)} s`);
  phase = "after";
  const newestFor = (client: number) =>
    specs[client]!.admin
      ? Math.max(...newestByAgency.values())
      : Math.max(0, ...agencyIdsByClient[client]!.map((a) => newestByAgency.get(a) ?? 0));
  const wanted = specs.map((s) => ({ client: s.index, ids: [newestFor(s.index)].filter((id) => id > 0) }));
  // Poll until every client has seen its newest alert, or 30 s after the replay.
  let burstSeen: Extract<FromClients, { type: "seen" }> = { type: "seen", seen: [], counts: [] };
  while (now() - replayEnd < 30_000) {
    burstSeen = await ask({ type: "seen", wanted }, "seen");
    if (burstSeen.seen.every((s) => s.at !== null)) break;
    await sleep(1_000);
  }
  // Until the clients' reads of their first page after the burst (2-7 s after the last refresh) are done.
  await sleep(Math.max(3_000, replayEnd + SETTLE_MS + JITTER_MS + 8_000 - now()));
  clearInterval(sampler);
  const final = await ask({ type: "seen", wanted: [] }, "seen");
  const counts = final.counts;
  const afterWaits = burstSeen.seen.map((s) => (s.at === null ? Number.POSITIVE_INFINITY : s.at - replayEnd));
  const unseen = burstSeen.seen.filter((s) => s.at === null).length;

  child.send({ type: "close" } satisfies ToClients);
  await Promise.race([new Promise((r) => child.once("exit", r)), sleep(3_000)]);
  await stopChild(child);
  const env = await environment(scratch.url);
  await db.end();
  const warnings = server
    .logs()
    .split("\n")
    .filter((l) => /"level":(40|50|60)/.test(l))
    .map((l) => /"msg":"([^"]*)"/.exec(l)?.[1] ?? l.slice(0, 120));
  await stopChild(server.child);
  await scratch.drop();

  const peak = (p: string) => Math.max(...rss.filter((r) => r.phase === p).map((r) => r.mb));
  const per = (f: (c: Counts) => number) => {
    const v = counts.map(f);
    return `${percentile(v, 50)} / ${percentile(v, 95)} / ${Math.max(...v)}`;
  };
  const maxRss = Math.max(...rss.map((r) => r.mb));
  const p95Single = percentile(singleDelay, 95);
  const worstAfter = Math.max(...afterWaits);
  console.log(
    [
      "```",
      env,
      "```",
      "",
      `${ready.connected} of ${CLIENTS} polling clients in one child process (${ADMINS} admins also in the admin room)` +
        `${redisUrl ? ", server with the Redis adapter" : ", server without Redis"}${NGINX ? ", through nginx" : ""}; ${SINGLES} single alerts 1 s apart; ` +
        `replay of ${REPLAY} messages in batches of ${BATCH}, ${((replayEnd - r0) / 1000).toFixed(1)} s.`,
      "",
      table(
        ["measure", "value", "target"],
        [
          [
            "single alert: ingest reply -> each entitled client (p50 / p95 / max ms)",
            `${ms(percentile(singleDelay, 50))} / ${ms(p95Single)} / ${ms(Math.max(...singleDelay))} (n ${singleDelay.length}, missing ${singleMissing})`,
            `p95 < 1000 ms: ${p95Single < 1000 && singleMissing === 0 ? "yes" : "**no**"}`,
          ],
          [
            "replay end -> client has seen its newest alert (p50 / p95 / max ms)",
            `${ms(percentile(afterWaits, 50))} / ${ms(percentile(afterWaits, 95))} / ${ms(worstAfter)} (unseen ${unseen})`,
            `all < 5000 ms: ${worstAfter < 5000 ? "yes" : "**no**"}`,
          ],
          [
            "server RSS MB (peak): idle / clients connected / singles / replay / 15 s after",
            ["idle", "connect", "singles", "replay", "after"]
              .map((p) => (Number.isFinite(peak(p)) ? peak(p).toFixed(0) : "-"))
              .join(" / "),
            `< 600 MB: ${maxRss < 600 ? "yes" : "**no**"}`,
          ],
          ["per client, replay and after: new-alert (p50 / p95 / max)", per((c) => c.newAlerts), ""],
          ["per client: alerts:refresh (p50 / p95 / max)", per((c) => c.refreshes), ""],
          ["per client: first-page fetches (p50 / p95 / max)", per((c) => c.fetches), ""],
          [
            "the clients' own process, replay and after: event-loop delay (p99 / max ms)",
            final.loopDelay ? `${ms(final.loopDelay.p99)} / ${ms(final.loopDelay.max)}` : "-",
            "",
          ],
          [
            "fetch errors / disconnects (all clients)",
            `${counts.reduce((n, c) => n + c.fetchErrors, 0)} / ${counts.reduce((n, c) => n + c.drops, 0)}`,
            "",
          ],
        ],
      ),
      "",
      `Server warnings and errors: ${warnings.length}${
        warnings.length ? ` (first: ${[...new Set(warnings)].slice(0, 3).join("; ")})` : ""
      }.`,
      "",
      `Why (fetch errors, disconnects): ${
        Object.entries(
          counts.reduce<Record<string, number>>((all, c) => {
            for (const [k, v] of Object.entries(c.why)) all[k] = (all[k] ?? 0) + v;
            return all;
          }, {}),
        )
          .map(([k, v]) => `${k} ×${v}`)
          .join("; ") || "none"
      }.`,
    ].join("\n"),
  );
}

if (process.argv.includes("--clients")) clientProcess();
else runMain(main);
