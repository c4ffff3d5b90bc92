/**
 * Redis stopped for 90 s under ingest on two instances (issue 29). Two real server processes
 * (compiled) on one scratch PostgreSQL database and a private redis-server (never the shared one),
 * 10 live clients on each instance (an admin's sockets in the admin room, which gets every alert),
 * a receiver posting one page every 100 ms to each instance in turn, a sign-in attempt every 2 s
 * and a health check of each instance every second. After BENCH_BEFORE_S seconds Redis is killed
 * (SIGKILL), BENCH_OUTAGE_S seconds later started again; the run goes on BENCH_AFTER_S seconds more.
 * A client reads its feed again (every page until one it knows) on every `alerts:refresh`, as the
 * web app does; at the end each must hold every page the receiver was answered 200 for.
 *
 *   npx tsx bench/server/redis-outage.ts
 *   BENCH_OUTAGE_S=15 npx tsx bench/server/redis-outage.ts
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { io, type Socket } from "socket.io-client";
import { privateRedis } from "../../server/test/redis-faults.js";
import {
  log,
  percentile,
  runMain,
  scratchDatabase,
  sleep,
  startServer,
  stopChild,
  table,
} from "./lib/common.js";

const BEFORE_S = Number(process.env.BENCH_BEFORE_S ?? 10);
const OUTAGE_S = Number(process.env.BENCH_OUTAGE_S ?? 90);
const AFTER_S = Number(process.env.BENCH_AFTER_S ?? 20);
const KEY = "redis-outage-bench-ingest-key";
const ADMIN = "+61412529000";

type Phase = "before" | "outage" | "after";

runMain(async () => {
  const redis = await privateRedis();
  const scratch = await scratchDatabase();
  const env = {
    INGEST_API_KEY: KEY,
    REDIS_URL: redis.url,
    REDIS_PREFIX: "bench-outage:",
    ADMIN_PHONES: ADMIN,
    JWT_SECRET: "redis-outage-bench-secret-0123456789abcdef",
  };
  const a = await startServer(scratch.url, env);
  const b = await startServer(scratch.url, env);
  const servers = [a, b];

  // Sign the admin in on A (its outbox holds the code).
  await fetch(`${a.url}/api/auth/request-otp`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ phone: ADMIN }),
  });
  await sleep(500);
  const code = readFileSync(path.join(a.dataDir, "sms-outbox.jsonl"), "utf8")
    .trim()
    .split("\n")
    .at(-1)!
    .match(/\b(\d{6})\b/)![1];
  const verify = await fetch(`${a.url}/api/auth/verify-otp`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-device-id": "bench" },
    body: JSON.stringify({ phone: ADMIN, otp_code: code }),
  });
  const token = ((await verify.json()) as { data: { token: string } }).data.token;

  const phase = { now: "before" as Phase };
  const clients = servers.flatMap((server, n) =>
    Array.from({ length: 10 }, () => {
      const socket: Socket = io(server.url, {
        transports: ["polling"],
        auth: { token },
        forceNew: true,
        reconnectionDelay: 1_000,
      });
      const client = {
        server: n === 0 ? "A" : "B",
        socket,
        seen: new Set<number>(),
        gapRefreshes: 0,
        reads: 0,
      };
      socket.on("connect", () => socket.emit("join-admin"));
      socket.on("new-alert", (x: { id: number }) => client.seen.add(x.id));
      socket.on("alerts:refresh", (x: { reason?: string }) => {
        if (x?.reason === "gap") client.gapRefreshes++;
        void readFeed(server.url, token, client.seen).then(() => client.reads++);
      });
      return client;
    }),
  );
  await sleep(2_000);

  const ingests: Array<{ phase: Phase; status: number; ms: number; id: number | null }> = [];
  const signIns: Array<{ phase: Phase; status: number }> = [];
  const health: Array<{ phase: Phase; ms: number; status: number; cache: string }> = [];
  let running = true;
  const receiver = (async () => {
    for (let n = 0; running; n++) {
      const target = servers[n % 2]!;
      const t = Date.now();
      const res = await fetch(`${target.url}/api/ingest/messages`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": KEY },
        body: JSON.stringify({ capcode: "0529900", message: `REDIS OUTAGE BENCH ${n} STRUC1` }),
      }).catch(() => null);
      const body = res ? ((await res.json().catch(() => ({}))) as { data?: Array<{ id: number }> }) : {};
      ingests.push({
        phase: phase.now,
        status: res?.status ?? 0,
        ms: Date.now() - t,
        id: body.data?.[0]?.id ?? null,
      });
      await sleep(100);
    }
  })();
  const signer = (async () => {
    while (running) {
      const res = await fetch(`${servers[signIns.length % 2]!.url}/api/auth/request-otp`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ phone: ADMIN }),
      }).catch(() => null);
      signIns.push({ phase: phase.now, status: res?.status ?? 0 });
      await sleep(2_000);
    }
  })();
  const checker = (async () => {
    while (running) {
      for (const server of servers) {
        const t = Date.now();
        const res = await fetch(`${server.url}/api/health`).catch(() => null);
        const body = res ? ((await res.json().catch(() => ({}))) as { cache?: string }) : {};
        health.push({
          phase: phase.now,
          ms: Date.now() - t,
          status: res?.status ?? 0,
          cache: body.cache ?? "-",
        });
      }
      await sleep(1_000);
    }
  })();

  await sleep(BEFORE_S * 1000);
  log("killing redis");
  phase.now = "outage";
  await redis.stop();
  await sleep(OUTAGE_S * 1000);
  log("starting redis again");
  await redis.start();
  phase.now = "after";
  await sleep(AFTER_S * 1000);
  running = false;
  await Promise.all([receiver, signer, checker]);
  await sleep(8_000); // the last refreshes settle

  const alive = servers.map((s) =>
    s.child.exitCode === null && s.child.signalCode === null
      ? "running"
      : `exited ${s.child.exitCode ?? s.child.signalCode}`,
  );
  const stored = ingests.filter((i) => i.status === 200 && i.id !== null).map((i) => i.id!);
  const missing = clients.map((c) => stored.filter((id) => !c.seen.has(id)).length);
  const rows = (["before", "outage", "after"] as Phase[]).map((p) => {
    const ing = ingests.filter((i) => i.phase === p);
    const h = health.filter((x) => x.phase === p);
    const si = signIns.filter((x) => x.phase === p);
    const count = (xs: { status: number }[]) => {
      const by = new Map<number, number>();
      for (const x of xs) by.set(x.status, (by.get(x.status) ?? 0) + 1);
      return [...by].map(([status, n]) => `${n}×${status}`).join(" ");
    };
    return [
      p,
      count(ing),
      `${percentile(
        ing.map((i) => i.ms),
        50,
      )} / ${Math.max(...ing.map((i) => i.ms))}`,
      count(si),
      `${percentile(
        h.map((x) => x.ms),
        50,
      )} / ${Math.max(...h.map((x) => x.ms))}`,
      [...new Set(h.map((x) => `${x.status} ${x.cache}`))].join(", "),
    ];
  });
  console.log(`\nRedis killed for ${OUTAGE_S} s under ingest on two instances (PostgreSQL)`);
  console.log(
    table(
      [
        "phase",
        "ingest answers",
        "ingest ms p50 / max",
        "sign-in answers",
        "health ms p50 / max",
        "health (status cache)",
      ],
      rows,
    ),
  );
  console.log(`\ninstances at the end: ${alive.join(", ")}`);
  console.log(
    `pages answered 200: ${stored.length}; clients: ${clients.length}; gap refreshes per client: ${[...new Set(clients.map((c) => c.gapRefreshes))].join(", ")}; pages missing per client at the end: max ${Math.max(...missing)}`,
  );
  for (const c of clients) c.socket.close();
  await Promise.all(servers.map((s) => stopChild(s.child)));
  await redis.stop();
  await scratch.drop();
});

/** Reads the admin feed newest first, page by page, until a page holds an alert `seen` already has. */
async function readFeed(base: string, token: string, seen: Set<number>): Promise<void> {
  let cursor: string | null = null;
  for (let pages = 0; pages < 50; pages++) {
    const url = `${base}/api/alerts/search?admin_context=true&limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
    const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } }).catch(() => null);
    if (!res?.ok) return;
    const body = (await res.json()) as {
      data: Array<{ id: number }>;
      pagination: { next_cursor: string | null };
    };
    const known = body.data.some((x) => seen.has(x.id));
    for (const x of body.data) seen.add(x.id);
    if (known || !body.pagination.next_cursor) return;
    cursor = body.pagination.next_cursor;
  }
}
