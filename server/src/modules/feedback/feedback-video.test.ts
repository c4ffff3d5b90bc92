import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { eq } from "drizzle-orm";
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

type App = Awaited<ReturnType<typeof buildApp>>;

let config: Config;
let database: DatabaseHandle;
let cache: Cache;
let app: App;
let url: string;
let adminToken: string;
let ownerToken: string;
let movFile: string;
const workDir = mkdtempSync(path.join(tmpdir(), "turnout-video-"));
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
  config = testConfig({ FFMPEG_PATH: "/usr/bin/ffmpeg" });
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

async function uploadMov(id: number) {
  const body = formBody([
    { name: "file", filename: "IMG_0042.MOV", type: "video/quicktime", data: readFileSync(movFile) },
  ]);
  const res = await app.inject({
    method: "POST",
    url: `/api/feedback/conversations/${id}/upload`,
    headers: { ...auth(ownerToken), ...body.headers },
    payload: body.payload,
  });
  expect(res.statusCode).toBe(201);
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
    expect(media.conversion_status).toBe("pending");
    expect(media.thumbnail_path).toMatch(/\.jpg\?/);
    const poster = await app.inject({ method: "GET", url: media.thumbnail_path! });
    expect(poster.headers["content-type"]).toBe("image/jpeg");

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

  it("a video ffmpeg cannot read is marked failed after its last try, and the owner hears of it", async () => {
    const id = await conversation();
    await app.feedback.converter.stop();
    const broken = Buffer.concat([
      Buffer.from([0, 0, 0, 0x14]),
      Buffer.from("ftypqt  \0\0\x02\0qt  ", "latin1"),
      Buffer.alloc(5000, 7),
    ]);
    const body = formBody([{ name: "file", filename: "broken.mov", type: "video/quicktime", data: broken }]);
    const res = await app.inject({
      method: "POST",
      url: `/api/feedback/conversations/${id}/upload`,
      headers: { ...auth(ownerToken), ...body.headers },
      payload: body.payload,
    });
    const media = res.json().data.message.media_attachments[0];
    expect(media).toMatchObject({ conversion_status: "pending", thumbnail_path: null });
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
    });
    // The original is kept for download.
    expect(existsSync(path.join(config.dataDir, "feedback-uploads", row!.filePath))).toBe(true);
  }, 60_000);
});
