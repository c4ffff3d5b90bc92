/**
 * Ingest and live delivery while the media queue converts videos (issue 28), against the same server
 * with no conversions, in one run: the real server (compiled, as `npm start` runs it) on PostgreSQL,
 * a signed-in member's live channel (socket.io, polling) in the agency paged, and pages posted one at
 * a time, 600 ms apart. Then four 20-second 1080p QuickTime videos (the kind: tens of kilobytes, many
 * CPU-seconds to convert) are uploaded, and the same pages are timed while ffmpeg works through them.
 *
 *   npx tsx bench/server/media-queue.ts        (BENCH_PAGES=60; DATABASE_URL optional)
 *
 * ingest: POST /api/ingest/messages until its 200. live: from the POST until the member's `new-alert`.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os, { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { io, type Socket } from "socket.io-client";
import { signSessionToken } from "../../server/src/shared/tokens.js";
import { formBody } from "../../server/test/multipart.js";
import { machineLine } from "../support/machine.js";
import {
  baseDatabaseUrl,
  log,
  ms,
  percentile,
  runMain,
  scratchDatabase,
  sleep,
  startServer,
  table,
} from "./lib/common.js";

const PAGES = Number(process.env.BENCH_PAGES ?? 60);
const KEY = "bench-media-ingest-key-0123456789";
const JWT_SECRET = "bench-media-secret-bench-media-secret-42";
const VIDEOS = 4;

type Timing = { ingest: number; live: number };

runMain(async () => {
  baseDatabaseUrl();
  const work = mkdtempSync(path.join(tmpdir(), "turnout-media-bench-"));
  const video = path.join(work, "black.mov");
  execFileSync("ffmpeg", [
    ...["-loglevel", "error", "-y", "-f", "lavfi", "-i", "color=black:size=1920x1080:rate=30:duration=20"],
    ...["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", video],
  ]);
  const videoBytes = readFileSync(video);
  log(`video: ${videoBytes.length} bytes, 20 s of 1920x1080`);

  const scratch = await scratchDatabase();
  const server = await startServer(scratch.url, {
    INGEST_API_KEY: KEY,
    JWT_SECRET,
    MEDIA_PENDING_PER_USER: String(VIDEOS),
  });
  const db = new pg.Client({ connectionString: scratch.url });
  await db.connect();
  let socket: Socket | undefined;
  try {
    const { rows: agency } = await db.query<{ id: number }>("SELECT id FROM agencies WHERE code = 'CFA'");
    await db.query("INSERT INTO capcodes (capcode, agency_id, area) VALUES ('0777028', $1, 'Bendigo')", [
      agency[0]!.id,
    ]);
    const { rows: user } = await db.query<{ id: number }>(
      `INSERT INTO users (first_name, last_name, phone, is_verified, is_active)
       VALUES ('Bench', 'Member', '+61499000028', true, true) RETURNING id`,
    );
    const userId = user[0]!.id;
    await db.query("INSERT INTO user_agencies (user_id, agency_id) VALUES ($1, $2)", [userId, agency[0]!.id]);
    const expiresAt = new Date(Date.now() + 86_400_000);
    const { rows: session } = await db.query<{ id: string }>(
      "INSERT INTO device_sessions (user_id, device_id, expires_at) VALUES ($1, 'bench', $2) RETURNING id",
      [userId, expiresAt],
    );
    const token = await signSessionToken(new TextEncoder().encode(JWT_SECRET), {
      userId,
      sessionId: session[0]!.id,
      expiresAt,
    });
    const auth = { authorization: `Bearer ${token}` };

    const arrivals = new Map<string, number>();
    socket = io(server.url, { transports: ["polling"], auth: { token }, reconnection: false });
    socket.on("new-alert", (alert: { message?: string }) => {
      if (alert.message) arrivals.set(alert.message, performance.now());
    });
    await new Promise<void>((resolve, reject) => {
      socket!.once("joined-user-agencies", () => resolve());
      socket!.once("connect_error", reject);
      socket!.emit("join-user-agencies");
    });

    let seq = 0;
    const measure = async (label: string): Promise<Timing[]> => {
      const timings: Timing[] = [];
      for (let i = 0; i < PAGES; i++) {
        const text = `@@ALERT F28${String(++seq).padStart(7, "0")} STRUC1 SHED FIRE ${label} ${i} EXAMPLE RD BENDIGO`;
        const started = performance.now();
        const res = await fetch(`${server.url}/api/ingest/messages`, {
          method: "POST",
          headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
          body: JSON.stringify({ capcode: "0777028", message: text, source: "bench" }),
        });
        const ingest = performance.now() - started;
        if (!res.ok) throw new Error(`ingest answered ${res.status}: ${await res.text()}`);
        const shown = text.slice(2);
        const deadline = Date.now() + 10_000;
        while (!arrivals.has(shown) && Date.now() < deadline) await sleep(2);
        timings.push({ ingest, live: (arrivals.get(shown) ?? Number.NaN) - started });
        // Under the live channel's burst rate (2 a second per room), so each page is its own new-alert.
        await sleep(600);
      }
      return timings;
    };
    const queueState = async () => {
      const { rows } = await db.query<{ waiting: string; running: string }>(
        `SELECT count(*) FILTER (WHERE NOT (job_running AND lease_until > now())) AS waiting,
                count(*) FILTER (WHERE job_running AND lease_until > now()) AS running
           FROM feedback_media WHERE conversion_status = 'pending' OR poster_pending`,
      );
      return `${rows[0]!.running} running, ${rows[0]!.waiting} waiting`;
    };

    await measure("warm-up");
    log("no conversions");
    const idleLoad = os.loadavg()[0]!;
    const idle = await measure("idle");

    const conversation = await fetch(`${server.url}/api/feedback/conversations`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify({ subject: "Videos", message: "four clips" }),
    }).then((r) => r.json() as Promise<{ data: { conversation: { id: number } } }>);
    const conversationId = conversation.data.conversation.id;
    const uploadStarted = performance.now();
    for (let i = 0; i < VIDEOS; i++) {
      const body = formBody([
        { name: "file", filename: `clip${i}.mov`, type: "video/quicktime", data: videoBytes },
      ]);
      const res = await fetch(`${server.url}/api/feedback/conversations/${conversationId}/upload`, {
        method: "POST",
        headers: { ...auth, ...body.headers },
        body: body.payload,
      });
      if (res.status !== 201) throw new Error(`upload answered ${res.status}: ${await res.text()}`);
    }
    const uploadMs = (performance.now() - uploadStarted) / VIDEOS;
    await sleep(1000);
    const before = await queueState();
    log(`with ${VIDEOS} conversions queued: ${before}`);
    const busyLoad = os.loadavg()[0]!;
    const busy = await measure("busy");
    const after = await queueState();

    const figures = (values: number[]) => {
      const got = values.filter((v) => Number.isFinite(v));
      return [ms(percentile(got, 50)), ms(percentile(got, 95)), ms(Math.max(...got))];
    };
    const missing = (t: Timing[]) => t.filter((x) => !Number.isFinite(x.live)).length;
    const row = (label: string, t: Timing[], state: string, load: number) => [
      label,
      ...figures(t.map((x) => x.ingest)),
      ...figures(t.map((x) => x.live)),
      String(missing(t)),
      state,
      load.toFixed(2),
    ];
    process.stdout.write(`${machineLine()}\n`);
    process.stdout.write(
      `${PAGES} pages each, one at a time 600 ms apart; MEDIA_CONCURRENCY=1, MEDIA_FFMPEG_THREADS=1, nice 10; upload (ffprobe included) ${ms(uploadMs)} ms a video\n\n`,
    );
    process.stdout.write(
      table(
        [
          "phase",
          "ingest p50 ms",
          "ingest p95",
          "ingest max",
          "live p50 ms",
          "live p95",
          "live max",
          "not live in 10 s",
          "media queue",
          "load (1 min)",
        ],
        [
          row("no conversions", idle, "empty", idleLoad),
          row(`${VIDEOS} conversions queued`, busy, `${before} → ${after}`, busyLoad),
        ],
      ),
    );
  } finally {
    socket?.disconnect();
    await db.end();
    rmSync(work, { recursive: true, force: true });
  }
});
