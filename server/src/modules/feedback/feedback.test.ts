import { readdirSync } from "node:fs";
import path from "node:path";
import { VIDEO_CONVERSION_UNAVAILABLE_TEXT } from "@turnout/domain";
import { eq } from "drizzle-orm";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, type TestApp } from "../../../test/build-app.js";
import { createUser, signIn } from "../../../test/factories.js";
import { pngDeclaring } from "../../../test/images.js";
import { type FormPart, formBody, streamedFileBody } from "../../../test/multipart.js";
import { feedbackMedia, securityEvents } from "../../db/schema.js";
import { FILE_TOO_LARGE_MESSAGE, UNSUPPORTED_TYPE_MESSAGE } from "./media.js";
import { sniffMediaType } from "./sniff.js";

let app: TestApp;
let adminToken: string;
let aliceToken: string;
let bobToken: string;
let alice: { id: number; phone: string };

beforeAll(async () => {
  // No ffmpeg in this file: videos are stored 'unavailable' (the video file tests the real thing).
  app = await buildTestApp({ FFMPEG_PATH: "/nonexistent/ffmpeg" });
  const admin = await createUser(app, { isAdmin: true, firstName: "Ada" });
  alice = await createUser(app, { firstName: "Alice" });
  const bob = await createUser(app, { firstName: "Bob" });
  adminToken = await signIn(app, admin.phone);
  aliceToken = await signIn(app, alice.phone);
  bobToken = await signIn(app, bob.phone);
});
afterAll(() => app.cleanup());

const auth = (token: string) => ({ authorization: `Bearer ${token}` });
type Method = "GET" | "POST" | "PATCH" | "DELETE";
const call = (method: Method, url: string, token: string, payload?: object) =>
  app.inject({ method, url: `/api${url}`, headers: auth(token), ...(payload ? { payload } : {}) });

const uploadDir = () => path.join(app.config.dataDir, "feedback-uploads");
const storedFiles = () => readdirSync(uploadDir()).filter((f) => f !== "tmp");
const tempFiles = () => readdirSync(path.join(uploadDir(), "tmp"));

async function newConversation(token = aliceToken, subject = "Wrong address") {
  const res = await call("POST", "/feedback/conversations", token, { subject, message: "The map is off." });
  expect(res.statusCode).toBe(201);
  return res.json().data as { conversation: { id: number }; message: { id: number } };
}

function upload(id: number, token: string, parts: FormPart[]) {
  const body = formBody(parts);
  return app.inject({
    method: "POST",
    url: `/api/feedback/conversations/${id}/upload`,
    headers: { ...auth(token), ...body.headers },
    payload: body.payload,
  });
}

const jpeg = () =>
  sharp({ create: { width: 1200, height: 800, channels: 3, background: "#c33" } })
    .jpeg()
    .toBuffer();

describe("conversations and messages", () => {
  it("a member opens a conversation, sees only their own; others get 404 everywhere", async () => {
    const { conversation, message } = await newConversation();
    const mine = await call("GET", "/feedback/conversations", aliceToken);
    expect(mine.json().data.map((c: { id: number }) => c.id)).toContain(conversation.id);
    const c = mine.json().data.find((x: { id: number }) => x.id === conversation.id);
    expect(c).toMatchObject({
      subject: "Wrong address",
      status: "open",
      message_count: 1,
      unread_count: 0,
      user: { id: alice.id, first_name: "Alice", last_name: "Tester" },
    });
    expect(message).toMatchObject({
      message: "The map is off.",
      is_admin: false,
      sender_name: "Alice Tester",
    });

    const theirs = await call("GET", "/feedback/conversations", bobToken);
    expect(theirs.json().data).toEqual([]);
    const id = conversation.id;
    for (const [method, url, body] of [
      ["GET", `/feedback/conversations/${id}/messages`, undefined],
      ["POST", `/feedback/conversations/${id}/messages`, { message: "hi" }],
      ["POST", `/feedback/conversations/${id}/mark-read`, undefined],
    ] as const) {
      const res = await call(method, url, bobToken, body);
      expect(res.statusCode, url).toBe(404);
      expect(res.json()).toMatchObject({ errorType: "not_found", message: "Conversation not found." });
    }
    const up = await upload(id, bobToken, [
      { name: "file", filename: "a.jpg", type: "image/jpeg", data: await jpeg() },
    ]);
    expect(up.statusCode).toBe(404);
    expect(tempFiles()).toEqual([]);
    expect((await call("GET", "/feedback/conversations/999999/messages", aliceToken)).statusCode).toBe(404);
    // Admin-only calls
    expect((await call("GET", "/feedback/admin/conversations", aliceToken)).statusCode).toBe(403);
    expect(
      (await call("PATCH", `/feedback/conversations/${id}/status`, aliceToken, { status: "closed" }))
        .statusCode,
    ).toBe(403);
    expect((await call("DELETE", `/feedback/conversations/${id}`, aliceToken)).statusCode).toBe(403);
    expect((await call("GET", "/feedback/admin/stats", aliceToken)).statusCode).toBe(403);
    expect((await app.inject({ method: "GET", url: "/api/feedback/conversations" })).statusCode).toBe(401);
  });

  it("admins see all with a status filter, reply, and unread counts move per side", async () => {
    const { conversation } = await newConversation(bobToken, "Bob's issue");
    const id = conversation.id;
    const all = await call("GET", "/feedback/admin/conversations", adminToken);
    const row = all.json().data.find((c: { id: number }) => c.id === id);
    expect(row).toMatchObject({ unread_count: 1, message_count: 1, user: { first_name: "Bob" } });
    const adminUnread = (await call("GET", "/feedback/admin/unread-count", adminToken)).json().data
      .unread_count;
    expect(adminUnread).toBeGreaterThanOrEqual(1);

    const read = await call("POST", `/feedback/conversations/${id}/mark-read`, adminToken);
    expect(read.json().data.unread_count).toBe(adminUnread - 1);

    const reply = await call("POST", `/feedback/conversations/${id}/messages`, adminToken, {
      message: "On it.",
    });
    expect(reply.statusCode).toBe(201);
    expect(reply.json().data.message).toMatchObject({
      is_admin: true,
      sender_name: "Ada Tester",
      media_attachments: [],
    });
    expect((await call("GET", "/feedback/unread-count", bobToken)).json().data.unread_count).toBe(1);
    const list = await call("GET", "/feedback/conversations", bobToken);
    expect(list.json().data[0]).toMatchObject({ id, unread_count: 1, message_count: 2 });
    const thread = await call("GET", `/feedback/conversations/${id}/messages`, bobToken);
    expect(thread.json().data.messages.map((m: { message: string }) => m.message)).toEqual([
      "The map is off.",
      "On it.",
    ]);
    const bobRead = await call("POST", `/feedback/conversations/${id}/mark-read`, bobToken);
    expect(bobRead.json().data.unread_count).toBe(0);
    expect((await call("GET", "/feedback/unread-count", bobToken)).json().data.unread_count).toBe(0);

    const status = await call("PATCH", `/feedback/conversations/${id}/status`, adminToken, {
      status: "in_progress",
    });
    expect(status.json().data.conversation.status).toBe("in_progress");
    const filtered = await call("GET", "/feedback/admin/conversations?status=in_progress", adminToken);
    expect(filtered.json().data.map((c: { id: number }) => c.id)).toEqual([id]);
    expect((await call("GET", "/feedback/admin/conversations?status=bogus", adminToken)).statusCode).toBe(
      400,
    );
    const events = await app.db
      .select()
      .from(securityEvents)
      .where(eq(securityEvents.eventType, "admin_feedback_status_changed"));
    expect(events.length).toBe(1);
  });

  it("a closed conversation refuses messages and uploads with 409", async () => {
    const { conversation } = await newConversation();
    const id = conversation.id;
    await call("PATCH", `/feedback/conversations/${id}/status`, adminToken, { status: "closed" });
    for (const token of [aliceToken, adminToken]) {
      const res = await call("POST", `/feedback/conversations/${id}/messages`, token, { message: "again" });
      expect(res.statusCode).toBe(409);
      expect(res.json()).toMatchObject({
        errorType: "conflict",
        message: "This conversation has been closed",
      });
    }
    const up = await upload(id, aliceToken, [{ name: "file", filename: "a.jpg", data: await jpeg() }]);
    expect(up.statusCode).toBe(409);
    expect(tempFiles()).toEqual([]);
  });

  it("refuses blank text", async () => {
    const res = await call("POST", "/feedback/conversations", aliceToken, { subject: " ", message: "x" });
    expect(res.statusCode).toBe(400);
  });
});

describe("uploads", () => {
  it("refuses a photo whose header declares 50,000 x 50,000 pixels, keeping nothing", async () => {
    const { conversation } = await newConversation();
    const before = storedFiles().length;
    const res = await upload(conversation.id, aliceToken, [
      {
        name: "file",
        filename: "bomb.png",
        type: "image/png",
        data: pngDeclaring(50_000, 50_000, 2_400_000),
      },
    ]);
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe(
      "The image is too large: 50000 x 50000 pixels (2500 megapixels); at most 40 megapixels. Please send a smaller picture.",
    );
    expect(storedFiles().length).toBe(before);
    expect(tempFiles()).toEqual([]);
    // At the limit it is taken (and given no thumbnail: it has no real rows to decode).
    const fits = await upload(conversation.id, aliceToken, [
      { name: "file", filename: "big.png", type: "image/png", data: pngDeclaring(8000, 5000) },
    ]);
    expect(fits.statusCode).toBe(201);
    expect(fits.json().data.message.media_attachments[0]).toMatchObject({ thumbnail_path: null });
  });

  it("stores a photo with a webp thumbnail, served by signed link and to owner/admin bearer only", async () => {
    const { conversation } = await newConversation();
    const res = await upload(conversation.id, aliceToken, [
      { name: "message", data: "  See the photo  " },
      {
        name: "file",
        filename: "../../etc/pass\u0007wd.JPG",
        type: "application/octet-stream",
        data: await jpeg(),
      },
    ]);
    expect(res.statusCode).toBe(201);
    const message = res.json().data.message;
    expect(message.message).toBe("See the photo");
    const [media] = message.media_attachments;
    expect(media).toMatchObject({
      file_name: "passwd.JPG",
      file_type: "image/jpeg",
      kind: "image",
      conversion_status: "none",
    });
    expect(media.file_path).toMatch(/^\/feedback-uploads\/[0-9a-f]{32}\.jpg\?exp=\d+&sig=[0-9a-f]{64}$/);
    expect(media.thumbnail_path).toMatch(/^\/feedback-uploads\/[0-9a-f]{32}\.webp\?/);

    const thumb = await app.inject({ method: "GET", url: media.thumbnail_path });
    expect(thumb.statusCode).toBe(200);
    expect(thumb.headers["content-type"]).toBe("image/webp");
    expect((await sharp(thumb.rawPayload).metadata()).width).toBe(480);

    const file = await app.inject({ method: "GET", url: media.file_path });
    expect(file.statusCode).toBe(200);
    expect(file.headers["content-type"]).toBe("image/jpeg");
    expect(file.headers["x-content-type-options"]).toBe("nosniff");
    expect(file.headers["content-disposition"]).toBe("inline");
    expect(file.headers["content-security-policy"]).toContain("default-src 'none'");
    expect(file.headers["cache-control"]).toBe("private, max-age=3600");

    const bare = media.file_path.split("?")[0];
    expect((await app.inject({ method: "GET", url: bare })).statusCode).toBe(404);
    expect((await app.inject({ method: "GET", url: bare, headers: auth(aliceToken) })).statusCode).toBe(200);
    expect((await app.inject({ method: "GET", url: bare, headers: auth(adminToken) })).statusCode).toBe(200);
    expect((await app.inject({ method: "GET", url: bare, headers: auth(bobToken) })).statusCode).toBe(404);
    expect((await app.inject({ method: "GET", url: bare, headers: auth("junk") })).statusCode).toBe(404);
    const url = new URL(media.file_path, "http://x");
    const sig = url.searchParams.get("sig")!;
    const exp = Number(url.searchParams.get("exp"));
    const changed = `${bare}?exp=${exp}&sig=${sig.slice(0, -1)}${sig.endsWith("0") ? "1" : "0"}`;
    expect((await app.inject({ method: "GET", url: changed })).statusCode).toBe(404);
    expect((await app.inject({ method: "GET", url: `${bare}?exp=${exp + 600}&sig=${sig}` })).statusCode).toBe(
      404,
    );
    // Expired: a link signed for an earlier time.
    const old = app.feedback.store.signedUrl(bare.split("/").pop()!, Date.now() - 2 * 3600_000 - 700_000);
    expect((await app.inject({ method: "GET", url: old })).statusCode).toBe(404);
    // Not the store's name pattern, traversal
    for (const u of ["/feedback-uploads/..%2F..%2Fjwt-secret", "/feedback-uploads/tmp", `${bare}x`]) {
      expect((await app.inject({ method: "GET", url: u, headers: auth(adminToken) })).statusCode).toBe(404);
    }
  });

  it("refuses a renamed executable, an SVG in disguise and HTML with 400, leaving nothing behind", async () => {
    const { conversation } = await newConversation();
    const before = storedFiles().length;
    const elf = Buffer.concat([Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0]), Buffer.alloc(9000, 1)]);
    const svg = Buffer.from(
      '<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>',
    );
    for (const [filename, type, data] of [
      ["photo.jpg", "image/jpeg", elf],
      ["photo.png", "image/png", svg],
      ["clip.mp4", "video/mp4", Buffer.from("<!doctype html><script>alert(1)</script>")],
      ["empty.jpg", "image/jpeg", Buffer.alloc(0)],
    ] as const) {
      const res = await upload(conversation.id, aliceToken, [{ name: "file", filename, type, data }]);
      expect(res.statusCode, filename).toBe(400);
      expect(res.json()).toMatchObject({ errorType: "validation_error", message: UNSUPPORTED_TYPE_MESSAGE });
    }
    expect(storedFiles().length).toBe(before);
    expect(tempFiles()).toEqual([]);
    const none = await upload(conversation.id, aliceToken, [{ name: "message", data: "no file" }]);
    expect(none.statusCode).toBe(400);
    const notMultipart = await call("POST", `/feedback/conversations/${conversation.id}/upload`, aliceToken, {
      a: 1,
    });
    expect(notMultipart.statusCode).toBeLessThan(500);
    expect(notMultipart.statusCode).toBeGreaterThanOrEqual(400);
  });

  it("refuses 100 MB and more with 413 while it streams in, and early from Content-Length", async () => {
    const { conversation } = await newConversation();
    const before = storedFiles().length;
    const head = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    const sendStreamed = (size: number, filename: string) => {
      const body = streamedFileBody({ size, head, filename, type: "image/png" });
      return app.inject({
        method: "POST",
        url: `/api/feedback/conversations/${conversation.id}/upload`,
        headers: { ...auth(aliceToken), ...body.headers },
        payload: body.payload,
      });
    };
    const res = await sendStreamed(101 * 1024 * 1024, "big.png");
    expect(res.statusCode).toBe(413);
    expect(res.json()).toMatchObject({ errorType: "validation_error", message: FILE_TOO_LARGE_MESSAGE });
    expect(tempFiles()).toEqual([]);
    expect(storedFiles().length).toBe(before);
    // Exactly 100 MB is refused too ("under 100 MB"); just under it is stored.
    expect((await sendStreamed(100 * 1024 * 1024, "exact.png")).statusCode).toBe(413);
    expect(tempFiles()).toEqual([]);
    const underRes = await sendStreamed(100 * 1024 * 1024 - 1, "under.png");
    expect(underRes.statusCode).toBe(201);
    // Not a decodable PNG past its signature: kept, without a thumbnail.
    expect(underRes.json().data.message.media_attachments[0]).toMatchObject({
      size_bytes: 100 * 1024 * 1024 - 1,
      file_type: "image/png",
      thumbnail_path: null,
    });

    const early = await app.inject({
      method: "POST",
      url: `/api/feedback/conversations/${conversation.id}/upload`,
      headers: {
        ...auth(aliceToken),
        "content-type": "multipart/form-data; boundary=x",
        "content-length": String(200 * 1024 * 1024),
      },
      payload: "",
    });
    expect(early.statusCode).toBe(413);
  }, 60_000);

  it("without ffmpeg a .mov is kept as 'unavailable' without a poster, and health warns", async () => {
    const { conversation } = await newConversation();
    const mov = Buffer.concat([
      Buffer.from([0, 0, 0, 0x14]),
      Buffer.from("ftypqt  \x00\x00\x02\x00qt  ", "latin1"),
      Buffer.alloc(2000, 0),
    ]);
    const res = await upload(conversation.id, aliceToken, [
      { name: "file", filename: "IMG_0001.MOV", type: "video/quicktime", data: mov },
    ]);
    expect(res.statusCode).toBe(201);
    expect(res.json().data.message.media_attachments[0]).toMatchObject({
      file_type: "video/quicktime",
      kind: "video",
      conversion_status: "unavailable",
      thumbnail_path: null,
    });
    const dash = await call("GET", "/admin/system/dashboard", adminToken);
    expect(dash.json().data.health.warnings).toContain(VIDEO_CONVERSION_UNAVAILABLE_TEXT);
    const stats = await call("GET", "/feedback/admin/stats", adminToken);
    expect(stats.json().data).toMatchObject({ ffmpeg_available: false });
    expect(stats.json().data.attachments).toBeGreaterThanOrEqual(1);
  });

  it("deleting a conversation removes its rows and files", async () => {
    const { conversation } = await newConversation();
    const res = await upload(conversation.id, aliceToken, [
      { name: "file", filename: "a.jpg", data: await jpeg() },
    ]);
    const media = res.json().data.message.media_attachments[0];
    const names = [media.file_path, media.thumbnail_path].map(
      (u: string) => u.split("?")[0]!.split("/").pop()!,
    );
    expect(storedFiles()).toEqual(expect.arrayContaining(names));
    const del = await call("DELETE", `/feedback/conversations/${conversation.id}`, adminToken);
    expect(del.json()).toMatchObject({ success: true, data: { id: conversation.id } });
    for (const n of names) expect(storedFiles()).not.toContain(n);
    expect(await app.db.select().from(feedbackMedia).where(eq(feedbackMedia.id, media.id))).toEqual([]);
    expect((await app.inject({ method: "GET", url: media.file_path })).statusCode).toBe(404);
    expect((await call("DELETE", `/feedback/conversations/${conversation.id}`, adminToken)).statusCode).toBe(
      404,
    );
  });

  it("deleting a user removes their feedback files", async () => {
    const carol = await createUser(app, { firstName: "Carol" });
    const token = await signIn(app, carol.phone);
    const { conversation } = await newConversation(token);
    const res = await upload(conversation.id, token, [
      { name: "file", filename: "a.jpg", data: await jpeg() },
    ]);
    const name = res.json().data.message.media_attachments[0].file_path.split("?")[0].split("/").pop();
    expect(storedFiles()).toContain(name);
    expect((await call("DELETE", `/admin/users/${carol.id}`, adminToken)).statusCode).toBe(200);
    expect(storedFiles()).not.toContain(name);
  });
});

describe("sniffing", () => {
  it("knows each accepted type by its bytes and nothing else", () => {
    const ftyp = (brand: string) =>
      Buffer.concat([
        Buffer.from([0, 0, 0, 0x18]),
        Buffer.from(`ftyp${brand}\0\0\0\0${brand}mif1`, "latin1"),
      ]);
    expect(sniffMediaType(ftyp("heic"))?.mime).toBe("image/heic");
    expect(sniffMediaType(ftyp("isom"))?.mime).toBe("video/mp4");
    expect(sniffMediaType(ftyp("qt  "))?.mime).toBe("video/quicktime");
    expect(sniffMediaType(ftyp("avif"))).toBeNull();
    expect(sniffMediaType(Buffer.from("GIF89a......"))?.mime).toBe("image/gif");
    expect(sniffMediaType(Buffer.from("RIFF\0\0\0\0WEBPVP8 "))?.mime).toBe("image/webp");
    const ebml = (doc: string) =>
      Buffer.concat([
        Buffer.from([0x1a, 0x45, 0xdf, 0xa3, 0x9f, 0x42, 0x82, 0x80 | doc.length]),
        Buffer.from(doc),
      ]);
    expect(sniffMediaType(ebml("webm"))?.mime).toBe("video/webm");
    expect(sniffMediaType(ebml("matroska"))).toBeNull();
    expect(sniffMediaType(Buffer.from("PK\x03\x04"))).toBeNull();
    expect(sniffMediaType(Buffer.from("MZ\x90\x00"))).toBeNull();
  });
});
