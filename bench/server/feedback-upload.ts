/**
 * Feedback uploads (issue 13): the server's memory while a ~100 MB upload streams in (target: RSS grows
 * by less than 50 MB), and how long the background job takes to convert a one-minute 720p phone-like
 * .mov (H.264/AAC in a QuickTime container, ~8 Mbit/s, made by ffmpeg) to mp4.
 *
 *   npx tsx bench/server/feedback-upload.ts
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import http from "node:http";
import os, { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { signSessionToken } from "../../server/src/shared/tokens.js";
import { machineLine } from "../support/machine.js";
import { log, procKb, runMain, scratchDatabase, sleep, startServer, table } from "./lib/common.js";

const JWT_SECRET = "bench-secret-bench-secret-bench-secret-0001";
const UPLOAD_BYTES = 100 * 1024 * 1024 - 1;
const MB = 1024 * 1024;

function rssBytes(pid: number): number {
  return procKb(pid, "VmRSS") * 1024;
}

async function adminToken(databaseUrl: string): Promise<string> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows: users } = await client.query<{ id: number }>(
      `INSERT INTO users (first_name, last_name, phone, is_admin, is_verified, is_active)
       VALUES ('Bench', 'Admin', '+61490000001', true, true, true) RETURNING id`,
    );
    const expiresAt = new Date(Date.now() + 86_400_000);
    const { rows: sessions } = await client.query<{ id: string }>(
      `INSERT INTO device_sessions (user_id, device_id, device_info, expires_at, last_activity)
       VALUES ($1, 'bench-device', '{}'::jsonb, $2, now()) RETURNING id`,
      [users[0]!.id, expiresAt],
    );
    return signSessionToken(new TextEncoder().encode(JWT_SECRET), {
      userId: users[0]!.id,
      sessionId: sessions[0]!.id,
      expiresAt,
    });
  } finally {
    await client.end();
  }
}

/** POSTs a multipart upload whose file part is written chunk by chunk (with back-pressure). */
function upload(
  base: string,
  token: string,
  conversationId: number,
  file: {
    name: string;
    type: string;
    size: number;
    write: (emit: (b: Buffer) => Promise<void>) => Promise<void>;
  },
): Promise<{ status: number; body: string }> {
  const boundary = "----turnoutbench";
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${file.name}"\r\nContent-Type: ${file.type}\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  return new Promise((resolve, reject) => {
    const req = http.request(`${base}/api/feedback/conversations/${conversationId}/upload`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${token}`,
        "content-type": `multipart/form-data; boundary=${boundary}`,
        "content-length": String(head.length + file.size + tail.length),
      },
    });
    req.on("response", (res) => {
      let body = "";
      res.on("data", (d) => (body += d));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    const emit = (b: Buffer) =>
      new Promise<void>((ok) => {
        if (req.write(b)) ok();
        else req.once("drain", ok);
      });
    void (async () => {
      await emit(head);
      await file.write(emit);
      req.end(tail);
    })();
  });
}

async function api(base: string, token: string, method: string, url: string, body?: object) {
  const res = await fetch(`${base}/api${url}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { "content-type": "application/json" } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return (await res.json()) as { data: { conversation: { id: number } } };
}

runMain(async () => {
  const scratch = await scratchDatabase();
  const server = await startServer(scratch.url, { JWT_SECRET });
  const pid = server.child.pid!;
  const token = await adminToken(scratch.url);
  const { data } = await api(server.url, token, "POST", "/feedback/conversations", {
    subject: "Bench",
    message: "Upload bench",
  });
  const conversationId = data.conversation.id as number;

  // 1. Memory while ~100 MB streams in.
  await sleep(2000);
  const before = rssBytes(pid);
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssBytes(pid));
  }, 20);
  const chunk = Buffer.alloc(MB, 0x41);
  const pngHead = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const t0 = performance.now();
  const res = await upload(server.url, token, conversationId, {
    name: "big.png",
    type: "image/png",
    size: UPLOAD_BYTES,
    write: async (emit) => {
      await emit(pngHead);
      let left = UPLOAD_BYTES - pngHead.length;
      while (left > 0) {
        const n = Math.min(left, chunk.length);
        await emit(n === chunk.length ? chunk : chunk.subarray(0, n));
        left -= n;
      }
    },
  });
  const uploadMs = performance.now() - t0;
  clearInterval(sampler);
  if (res.status !== 201) throw new Error(`upload: ${res.status} ${res.body}`);
  log(`upload ${res.status} in ${Math.round(uploadMs)} ms`);

  // 2. One minute of 720p phone-like video, converted by the server's background job.
  const work = mkdtempSync(path.join(tmpdir(), "turnout-bench-mov-"));
  const mov = path.join(work, "IMG_0001.MOV");
  log("making a one-minute 720p .mov");
  execFileSync("ffmpeg", [
    ...["-loglevel", "error", "-y"],
    ...["-f", "lavfi", "-i", "testsrc2=duration=60:size=1280x720:rate=30"],
    ...["-f", "lavfi", "-i", "sine=frequency=440:duration=60"],
    ...["-c:v", "libx264", "-preset", "ultrafast", "-b:v", "8M", "-pix_fmt", "yuv420p"],
    ...["-c:a", "aac", "-b:a", "128k", "-f", "mov", mov],
  ]);
  const movBytes = statSync(mov).size;
  const movData = readFileSync(mov);
  const uploaded = await upload(server.url, token, conversationId, {
    name: "IMG_0001.MOV",
    type: "video/quicktime",
    size: movBytes,
    write: async (emit) => {
      for (let at = 0; at < movData.length; at += MB) await emit(movData.subarray(at, at + MB));
    },
  });
  if (uploaded.status !== 201) throw new Error(`mov upload: ${uploaded.status} ${uploaded.body}`);
  const mediaId = JSON.parse(uploaded.body).data.message.media_attachments[0].id as number;
  const c0 = performance.now();
  const client = new pg.Client({ connectionString: scratch.url });
  await client.connect();
  let status = "pending";
  let mp4Bytes = 0;
  while (status === "pending") {
    await sleep(250);
    const { rows } = await client.query<{ conversion_status: string; size_bytes: string }>(
      "SELECT conversion_status, size_bytes FROM feedback_media WHERE id = $1",
      [mediaId],
    );
    status = rows[0]!.conversion_status;
    mp4Bytes = Number(rows[0]!.size_bytes);
    if (performance.now() - c0 > 15 * 60_000) throw new Error("conversion took over 15 minutes");
  }
  const convertMs = performance.now() - c0;
  await client.end();
  rmSync(work, { recursive: true, force: true });

  const load = os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(" / ");
  process.stdout.write(`\n${machineLine()}\nload average (1/5/15 min) at the end: ${load}\n\n`);
  process.stdout.write(
    `${table(
      ["measure", "value"],
      [
        ["upload size", `${(UPLOAD_BYTES / MB).toFixed(1)} MB`],
        ["server RSS before", `${(before / MB).toFixed(1)} MB`],
        ["server RSS peak during upload", `${(peak / MB).toFixed(1)} MB`],
        ["RSS growth (target < 50 MB)", `${((peak - before) / MB).toFixed(1)} MB`],
        ["upload time (loopback)", `${(uploadMs / 1000).toFixed(1)} s`],
        [".mov (60 s, 1280x720, 30 fps, H.264 8 Mbit/s + AAC)", `${(movBytes / MB).toFixed(1)} MB`],
        [`conversion to mp4 (${status})`, `${(convertMs / 1000).toFixed(1)} s`],
        ["mp4 size", `${(mp4Bytes / MB).toFixed(1)} MB`],
      ],
    )}\n`,
  );
});
