import { execFileSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { eq, inArray } from "drizzle-orm";
import { io as connect, type Socket } from "socket.io-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestCache, openTestDatabase, testConfig } from "../../../test/build-app.js";
import { createUser, signIn } from "../../../test/factories.js";
import { formBody } from "../../../test/multipart.js";
import { buildApp } from "../../app.js";
import type { Cache } from "../../cache/cache.js";
import type { Config } from "../../config.js";
import type { DatabaseHandle } from "../../db/client.js";
import { feedbackMedia } from "../../db/schema.js";
import { createLogger } from "../../logger.js";
import { VIDEO_UNREADABLE_MESSAGE } from "./media.js";

type App = Awaited<ReturnType<typeof buildApp>>;

let config: Config;
let database: DatabaseHandle;
let cache: Cache;
let app: App;
let url: string;
let adminToken: string;
let ownerToken: string;
let movFile: string;
let tinyMovFile: string;
let tinyMp4File: string;
const workDir = mkdtempSync(path.join(tmpdir(), "turnout-video-"));
/** Each ffmpeg run as the wrapper saw it: start and end (ns), its niceness and arguments. */
const runLog = path.join(workDir, "ffmpeg-runs.log");

/**
 * An ffmpeg that logs each run and hands it to Debian's: the tests see how many ran at once, at which
 * priority and with which -threads. ffprobe beside it is the real one.
 */
function ffmpegWrapper(): string {
  const dir = path.join(workDir, "bin");
  mkdirSync(dir);
  const wrapper = path.join(dir, "ffmpeg");
  writeFileSync(
    wrapper,
    `#!/bin/sh
if [ "$1" = "-version" ]; then exec /usr/bin/ffmpeg "$@"; fi
echo "start $$ $(date +%s%N)" >> ${runLog}
sleep 0.05
echo "nice $$ $(awk '{print $19}' /proc/$$/stat) $*" >> ${runLog}
/usr/bin/ffmpeg "$@"
rc=$?
echo "end $$ $(date +%s%N)" >> ${runLog}
exit $rc
`,
  );
  chmodSync(wrapper, 0o755);
  symlinkSync("/usr/bin/ffprobe", path.join(dir, "ffprobe"));
  return wrapper;
}

/** The most wrapper runs that were under way at one moment, and every run's niceness and arguments. */
function ffmpegRuns(): { maxAtOnce: number; runs: { nice: number; args: string }[] } {
  const lines = existsSync(runLog) ? readFileSync(runLog, "utf8").trim().split("\n") : [];
  const edges = lines
    .map((l) => l.split(" "))
    .filter(([kind]) => kind === "start" || kind === "end")
    .map(([kind, , at]) => ({ at: BigInt(at!), delta: kind === "start" ? 1 : -1 }))
    .sort((a, b) => (a.at === b.at ? a.delta - b.delta : a.at < b.at ? -1 : 1));
  let now = 0;
  let maxAtOnce = 0;
  for (const e of edges) {
    now += e.delta;
    maxAtOnce = Math.max(maxAtOnce, now);
  }
  const runs = lines
    .filter((l) => l.startsWith("nice "))
    .map((l) => {
      const [, , nice, ...args] = l.split(" ");
      return { nice: Number(nice), args: args.join(" ") };
    });
  return { maxAtOnce, runs };
}
const sockets: Socket[] = [];

/** One app instance on the shared database and data dir (the restart test builds a second). */
async function start(): Promise<App> {
  const a = await buildApp(config, { database, cache, logger: createLogger("silent") });
  await a.listen({ port: 0, host: "127.0.0.1" });
  return a;
}

function baseUrl(a: App) {
  const address = a.server.address();
  return `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
}

beforeAll(async () => {
  movFile = path.join(workDir, "clip.mov");
  execFileSync("ffmpeg", [
    "-loglevel",
    "error",
    "-y",
    "-f",
    "lavfi",
    "-i",
    "testsrc=duration=2:size=320x240:rate=15",
    "-f",
    "lavfi",
    "-i",
    "sine=duration=2",
    "-c:v",
    "mpeg4",
    "-c:a",
    "aac",
    movFile,
  ]);
  tinyMovFile = path.join(workDir, "tiny.mov");
  execFileSync("ffmpeg", [
    "-loglevel",
    "error",
    "-y",
    "-f",
    "lavfi",
    "-i",
    "testsrc=duration=1:size=64x48:rate=10",
    "-c:v",
    "mpeg4",
    tinyMovFile,
  ]);
  tinyMp4File = path.join(workDir, "tiny.mp4");
  execFileSync("ffmpeg", [
    "-loglevel",
    "error",
    "-y",
    "-i",
    tinyMovFile,
    "-c:v",
    "libx264",
    "-preset",
    "ultrafast",
    tinyMp4File,
  ]);
  config = testConfig({
    FFMPEG_PATH: ffmpegWrapper(),
    MEDIA_PENDING_PER_USER: "10",
    UPLOAD_MB_PER_DAY: "5",
    MAX_VIDEO_SECONDS: "300",
  });
  database = await openTestDatabase();
  cache = await openTestCache();
  app = await start();
  url = baseUrl(app);
  const admin = await createUser(app as never, { isAdmin: true });
  const owner = await createUser(app as never);
  adminToken = await signIn(app as never, admin.phone);
  ownerToken = await signIn(app as never, owner.phone);
}, 60_000);

afterAll(async () => {
  for (const s of sockets) s.disconnect();
  await app.close();
  await cache.close();
  await database.close();
  rmSync(config.dataDir, { recursive: true, force: true });
  rmSync(workDir, { recursive: true, force: true });
});

function open(token: string): Socket {
  const s = connect(url, { transports: ["polling"], auth: { token }, reconnection: false, forceNew: true });
  sockets.push(s);
  return s;
}

const auth = (token: string) => ({ authorization: `Bearer ${token}` });

async function conversation(): Promise<number> {
  const res = await app.inject({
    method: "POST",
    url: "/api/feedback/conversations",
    headers: auth(ownerToken),
    payload: { subject: "Video", message: "See the clip" },
  });
  return res.json().data.conversation.id;
}

function postVideo(id: number, data: Buffer, token = ownerToken) {
  const body = formBody([{ name: "file", filename: "IMG_0042.MOV", type: "video/quicktime", data }]);
  return app.inject({
    method: "POST",
    url: `/api/feedback/conversations/${id}/upload`,
    headers: { ...auth(token), ...body.headers },
    payload: body.payload,
  });
}

async function uploadMov(id: number, file = movFile) {
  const res = await postVideo(id, readFileSync(file));
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data.message.media_attachments[0] as {
    id: number;
    file_path: string;
    thumbnail_path: string | null;
    conversion_status: string;
  };
}

async function statusOf(mediaId: number) {
  const [row] = await app.db.select().from(feedbackMedia).where(eq(feedbackMedia.id, mediaId));
  return row?.conversionStatus;
}

function probe(file: string): string[] {
  const out = execFileSync("ffprobe", [
    "-v",
    "error",
    "-show_entries",
    "stream=codec_name",
    "-of",
    "csv=p=0",
    file,
  ]);
  return out
    .toString()
    .trim()
    .split("\n")
    .map((l) => l.trim());
}

describe("feedback live events", () => {
  it("admins hear of new conversations and messages; the owner of replies and status; nobody else", async () => {
    const other = await createUser(app as never);
    const otherToken = await signIn(app as never, other.phone);
    const adminSocket = open(adminToken);
    await new Promise<void>((resolve) => {
      adminSocket.once("joined-admin", () => resolve());
      adminSocket.emit("join-admin");
    });
    const heard: string[] = [];
    const names = ["feedback:new-conversation", "feedback:new-message", "feedback:status-changed"];
    for (const [who, s] of [
      ["admin", adminSocket],
      ["owner", open(ownerToken)],
      ["other", open(otherToken)],
    ] as const) {
      for (const name of names) s.on(name, () => heard.push(`${who} ${name}`));
    }
    await new Promise((r) => setTimeout(r, 300));
    const id = await conversation();
    await app.inject({
      method: "POST",
      url: `/api/feedback/conversations/${id}/messages`,
      headers: auth(adminToken),
      payload: { message: "Thanks" },
    });
    await app.inject({
      method: "PATCH",
      url: `/api/feedback/conversations/${id}/status`,
      headers: auth(adminToken),
      payload: { status: "closed" },
    });
    await expect.poll(() => heard.length, { timeout: 5000 }).toBe(7);
    await new Promise((r) => setTimeout(r, 200));
    expect(heard.sort()).toEqual(
      [
        "admin feedback:new-conversation",
        "admin feedback:new-message",
        "owner feedback:new-message",
        "admin feedback:new-message",
        "owner feedback:new-message",
        "admin feedback:status-changed",
        "owner feedback:status-changed",
      ].sort(),
    );
  });
});

describe("feedback videos with ffmpeg", () => {
  it("a .mov gets a poster, is converted to H.264/AAC mp4 in the background, and both sides hear of it", async () => {
    const ownerSocket = open(ownerToken);
    const adminSocket = open(adminToken);
    await new Promise<void>((resolve) => {
      adminSocket.once("joined-admin", () => resolve());
      adminSocket.emit("join-admin");
    });
    const heard: { who: string; payload: unknown }[] = [];
    ownerSocket.on("feedback:media-converted", (p) => heard.push({ who: "owner", payload: p }));
    adminSocket.on("feedback:media-converted", (p) => heard.push({ who: "admin", payload: p }));
    await new Promise((r) => setTimeout(r, 200));

    const id = await conversation();
    const media = await uploadMov(id);
    // The request ran no ffmpeg: the poster and the conversion are the media queue's jobs.
    expect(media.conversion_status).toBe("pending");
    expect(media.thumbnail_path).toBeNull();

    await expect.poll(() => heard.length, { timeout: 30_000, interval: 100 }).toBe(2);
    expect(heard.map((h) => h.who).sort()).toEqual(["admin", "owner"]);
    expect(heard[0]!.payload).toEqual({ conversationId: id, mediaId: media.id, status: "done" });

    const thread = await app.inject({
      method: "GET",
      url: `/api/feedback/conversations/${id}/messages`,
      headers: auth(ownerToken),
    });
    const converted = thread.json().data.messages[1].media_attachments[0];
    expect(converted).toMatchObject({ conversion_status: "done", file_type: "video/mp4", kind: "video" });
    expect(converted.file_path).toMatch(/\.mp4\?/);
    expect(converted.thumbnail_path).toMatch(/\.jpg\?/);
    const poster = await app.inject({ method: "GET", url: converted.thumbnail_path });
    expect(poster.headers["content-type"]).toBe("image/jpeg");
    const name = converted.file_path.split("?")[0].split("/").pop();
    const stored = path.join(config.dataDir, "feedback-uploads", name);
    expect(probe(stored).sort()).toEqual(["aac", "h264"]);
    // The original is gone.
    expect(
      existsSync(
        path.join(config.dataDir, "feedback-uploads", media.file_path.split("?")[0]!.split("/").pop()!),
      ),
    ).toBe(false);

    // Served with ranges.
    const ranged = await app.inject({
      method: "GET",
      url: converted.file_path,
      headers: { range: "bytes=0-99" },
    });
    expect(ranged.statusCode).toBe(206);
    expect(ranged.headers["content-type"]).toBe("video/mp4");
    expect(ranged.headers["content-range"]).toMatch(/^bytes 0-99\/\d+$/);
    expect(ranged.rawPayload.length).toBe(100);
    expect(ranged.headers["x-content-type-options"]).toBe("nosniff");
  }, 60_000);

  it("a pending video left by a stopped instance (lease expired) is converted by a new instance", async () => {
    const id = await conversation();
    // Stop the worker first so the upload stays pending, as if the instance died before converting it.
    await app.feedback.converter.stop();
    const media = await uploadMov(id);
    expect(media.conversion_status).toBe("pending");
    // A claim whose instance died: attempts counted, lease in the past.
    await app.db
      .update(feedbackMedia)
      .set({ conversionAttempts: 1, leaseUntil: new Date(Date.now() - 1000) })
      .where(eq(feedbackMedia.id, media.id));
    await app.close();

    app = await start();
    url = baseUrl(app);
    await expect.poll(() => statusOf(media.id), { timeout: 30_000, interval: 200 }).toBe("done");
    const [row] = await app.db.select().from(feedbackMedia).where(eq(feedbackMedia.id, media.id));
    expect(row).toMatchObject({ fileType: "video/mp4", leaseUntil: null, conversionAttempts: 2 });
  }, 60_000);

  it("a row held by another instance's live lease is left alone", async () => {
    const id = await conversation();
    await app.feedback.converter.stop();
    const media = await uploadMov(id);
    await app.db
      .update(feedbackMedia)
      .set({ conversionAttempts: 1, leaseUntil: new Date(Date.now() + 60_000) })
      .where(eq(feedbackMedia.id, media.id));
    app.feedback.converter.start();
    await new Promise((r) => setTimeout(r, 1500));
    const [row] = await app.db.select().from(feedbackMedia).where(eq(feedbackMedia.id, media.id));
    expect(row).toMatchObject({ conversionStatus: "pending", conversionAttempts: 1 });
    // Once the lease runs out, this instance takes it.
    await app.db
      .update(feedbackMedia)
      .set({ leaseUntil: new Date(Date.now() - 1) })
      .where(eq(feedbackMedia.id, media.id));
    app.feedback.converter.nudge();
    await expect.poll(() => statusOf(media.id), { timeout: 30_000, interval: 200 }).toBe("done");
  }, 60_000);

  it("a video whose conversion keeps failing is marked failed after its last try, and the owner hears of it", async () => {
    const id = await conversation();
    await app.feedback.converter.stop();
    const media = await uploadMov(id, tinyMovFile);
    // The stored file goes bad after ffprobe accepted it (a disk fault, say): every try fails.
    const [stored] = await app.db.select().from(feedbackMedia).where(eq(feedbackMedia.id, media.id));
    writeFileSync(path.join(config.dataDir, "feedback-uploads", stored!.filePath), Buffer.alloc(5000, 7));
    // Two tries already spent: the next is the last.
    await app.db.update(feedbackMedia).set({ conversionAttempts: 2 }).where(eq(feedbackMedia.id, media.id));
    const ownerSocket = open(ownerToken);
    const heard: unknown[] = [];
    ownerSocket.on("feedback:media-converted", (p) => heard.push(p));
    await new Promise((r) => setTimeout(r, 300));
    app.feedback.converter.start();
    await expect
      .poll(() => heard, { timeout: 30_000, interval: 100 })
      .toEqual([{ conversationId: id, mediaId: media.id, status: "failed" }]);
    const [row] = await app.db.select().from(feedbackMedia).where(eq(feedbackMedia.id, media.id));
    expect(row).toMatchObject({
      conversionStatus: "failed",
      fileType: "video/quicktime",
      conversionAttempts: 3,
      jobRunning: false,
      posterPending: false,
    });
    // The original is kept for download.
    expect(existsSync(path.join(config.dataDir, "feedback-uploads", row!.filePath))).toBe(true);
  }, 60_000);
});

describe("the media queue's bounds", () => {
  it("refuses at upload a video ffprobe cannot read, and a long low-bitrate one by its duration", async () => {
    const id = await conversation();
    const broken = Buffer.concat([
      Buffer.from([0, 0, 0, 0x14]),
      Buffer.from("ftypqt  \0\0\x02\0qt  ", "latin1"),
      Buffer.alloc(5000, 7),
    ]);
    const unreadable = await postVideo(id, broken);
    expect(unreadable.statusCode).toBe(400);
    expect(unreadable.json().message).toBe(VIDEO_UNREADABLE_MESSAGE);
    // Five minutes and a second of 1 fps black at 32 x 32: a few kilobytes, hours of work for some codecs.
    const long = path.join(workDir, "long.mov");
    execFileSync("ffmpeg", [
      ...["-loglevel", "error", "-y", "-f", "lavfi", "-i", "color=black:size=32x32:rate=1:duration=301"],
      ...["-c:v", "mpeg4", long],
    ]);
    const before = ffmpegRuns().runs.length;
    const res = await postVideo(id, readFileSync(long));
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe(
      "The video is too long: 5 min 1 s; at most 5 min. Please send a shorter clip.",
    );
    expect(ffmpegRuns().runs.length).toBe(before);
    const files = readdirSync(path.join(config.dataDir, "feedback-uploads")).filter((f) => f !== "tmp");
    const rows = await app.db.select({ filePath: feedbackMedia.filePath }).from(feedbackMedia);
    expect(files.filter((f) => f.endsWith(".mov")).every((f) => rows.some((r) => r.filePath === f))).toBe(
      true,
    );
  }, 60_000);

  it("ten parallel uploads run at most one ffmpeg at a time, with -threads 1 at a lowered priority", async () => {
    await expect
      .poll(() => app.feedback.converter.state(), { timeout: 30_000 })
      .toMatchObject({ running: 0 });
    const id = await conversation();
    rmSync(runLog, { force: true });
    // mp4: each needs a poster only, so the test waits for ten ffmpeg runs, not twenty.
    const data = readFileSync(tinyMp4File);
    const results = await Promise.all(Array.from({ length: 10 }, () => postVideo(id, data)));
    expect(results.map((r) => r.statusCode)).toEqual(results.map(() => 201));
    const ids = results.map((r) => r.json().data.message.media_attachments[0].id as number);
    const postersMade = async () => {
      const rows = await app.db.select().from(feedbackMedia).where(inArray(feedbackMedia.id, ids));
      return rows.filter((r) => !r.posterPending && r.thumbnailPath).length;
    };
    await expect.poll(postersMade, { timeout: 60_000, interval: 200 }).toBe(10);
    const { maxAtOnce, runs } = ffmpegRuns();
    expect(runs.length).toBe(10);
    expect(maxAtOnce).toBe(1);
    expect(runs.every((r) => r.nice === 10)).toBe(true);
    expect(runs.every((r) => /(^| )-threads 1( |$)/.test(r.args))).toBe(true);
    const state = (
      await app.inject({ method: "GET", url: "/api/admin/system/dashboard", headers: auth(adminToken) })
    ).json().data.media_queue;
    expect(state).toMatchObject({
      available: true,
      concurrency: 1,
      ffmpeg_threads: 1,
      waiting: 0,
      running: 0,
    });
  }, 120_000);

  it("holds a member to their videos waiting in the queue and their bytes a day, with 429", async () => {
    const member = await createUser(app as never);
    const token = await signIn(app as never, member.phone);
    const res = await app.inject({
      method: "POST",
      url: "/api/feedback/conversations",
      headers: auth(token),
      payload: { subject: "Quota", message: "clips" },
    });
    const id = res.json().data.conversation.id;
    await app.feedback.converter.stop();
    const data = readFileSync(tinyMovFile);
    for (let i = 0; i < 10; i++) expect((await postVideo(id, data, token)).statusCode).toBe(201);
    const over = await postVideo(id, data, token);
    expect(over.statusCode).toBe(429);
    expect(over.json()).toMatchObject({
      errorType: "rate_limited",
      message: "You have 10 videos still being processed; please send this one once they are ready.",
    });
    const dashboard = await app.inject({
      method: "GET",
      url: "/api/admin/system/dashboard",
      headers: auth(adminToken),
    });
    expect(dashboard.json().data.media_queue).toMatchObject({ waiting: 10, running: 0 });
    // 5 MB a day here: a 6 MB upload is refused by its declared length, before the body is read.
    const big = await app.inject({
      method: "POST",
      url: `/api/feedback/conversations/${id}/upload`,
      headers: {
        ...auth(token),
        "content-type": "multipart/form-data; boundary=x",
        "content-length": String(6 * 1024 * 1024),
      },
      payload: Buffer.alloc(6 * 1024 * 1024, 0x41),
    });
    expect(big.statusCode).toBe(429);
    expect(big.json().message).toMatch(
      /^You have uploaded \d+ MB in the last 24 hours; the limit is 5 MB a day/,
    );
    expect(Number(big.headers["retry-after"])).toBeGreaterThan(0);
    app.feedback.converter.start();
  }, 60_000);
});
