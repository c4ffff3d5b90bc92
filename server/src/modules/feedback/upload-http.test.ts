import http from "node:http";
import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, listenLocally, type TestApp } from "../../../test/build-app.js";
import { createUser, signIn } from "../../../test/factories.js";

// Over a real socket: refusals arrive while the client is still sending, and the connection is closed
// rather than left waiting for the rest of a body nobody will read (else the app could not close).
let app: TestApp;
let token: string;
let base: string;
let conversationId: number;

/** The server's log lines (JSON), to see what an aborted upload is logged as. */
const logLines: { msg?: string; level?: number }[] = [];
const logStream = new Writable({
  write(chunk, _encoding, done) {
    for (const line of String(chunk).split("\n").filter(Boolean)) logLines.push(JSON.parse(line));
    done();
  },
});

beforeAll(async () => {
  app = await buildTestApp({ FFMPEG_PATH: "/nonexistent/ffmpeg", LOG_LEVEL: "info" }, { logStream });
  const user = await createUser(app);
  token = await signIn(app, user.phone);
  base = await listenLocally(app);
  const res = await app.inject({
    method: "POST",
    url: "/api/feedback/conversations",
    headers: { authorization: `Bearer ${token}` },
    payload: { subject: "Upload", message: "over http" },
  });
  conversationId = res.json().data.conversation.id;
});
afterAll(() => app.cleanup());

const MB = 1024 * 1024;

/** Sends a file part of `size` bytes starting with `head`, 1 MB at a time, until the server answers. */
function send(head: Buffer, size: number, options: { contentLength: boolean; id?: number }) {
  const boundary = "turnout-boundary";
  const partHead = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="x.jpg"\r\nContent-Type: image/jpeg\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  return new Promise<{ status: number; errorMessage: string; sentMB: number }>((resolve) => {
    let sent = 0;
    let answered = false;
    const req = http.request(`${base}/api/feedback/conversations/${options.id ?? conversationId}/upload`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${token}`,
        "content-type": `multipart/form-data; boundary=${boundary}`,
        ...(options.contentLength ? { "content-length": String(partHead.length + size + tail.length) } : {}),
      },
    });
    req.on("response", (res) => {
      answered = true;
      let body = "";
      res.on("data", (d) => (body += d));
      res.on("end", () =>
        resolve({ status: res.statusCode ?? 0, errorMessage: JSON.parse(body).message, sentMB: sent / MB }),
      );
    });
    req.on("error", () => {});
    const write = (b: Buffer) =>
      new Promise<void>((ok) => {
        if (answered || req.destroyed) return ok();
        sent += b.length;
        if (req.write(b)) ok();
        else {
          req.once("drain", ok);
          req.once("close", ok);
        }
      });
    void (async () => {
      await write(partHead);
      await write(head);
      const chunk = Buffer.alloc(MB, 1);
      for (let left = size - head.length; left > 0 && !answered && !req.destroyed; left -= MB) {
        await write(left >= MB ? chunk : chunk.subarray(0, left));
      }
      if (!answered && !req.destroyed) req.end(tail);
    })();
  });
}

describe("upload refusals over HTTP", () => {
  const elf = Buffer.from([0x7f, 0x45, 0x4c, 0x46]);
  const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0]);

  it("a file of another type is refused after its first bytes, not after all of them", async () => {
    for (const contentLength of [true, false]) {
      const r = await send(elf, 50 * MB, { contentLength });
      expect(r.status).toBe(400);
      expect(r.sentMB).toBeLessThan(40);
    }
  });

  it("100 MB and more is refused: at once from Content-Length, at the limit when chunked", async () => {
    const early = await send(jpeg, 101 * MB, { contentLength: true });
    expect(early.status).toBe(413);
    expect(early.sentMB).toBeLessThan(90);
    const chunked = await send(jpeg, 101 * MB, { contentLength: false });
    expect(chunked.status).toBe(413);
    expect(chunked.errorMessage).toBe("The file is too large. Please choose a file smaller than 100MB.");
  }, 30_000);

  it("an unknown conversation is refused before the file is read, and the server answers afterwards", async () => {
    const r = await send(jpeg, 20 * MB, { contentLength: true, id: 999_999 });
    expect(r.status).toBe(404);
    expect(r.sentMB).toBeLessThan(20);
    expect((await fetch(`${base}/api/health`)).status).toBe(200);
  });

  it("an upload the client abandons half-way is logged as such, not as the database being unreachable", async () => {
    const boundary = "turnout-boundary";
    const req = http.request(`${base}/api/feedback/conversations/${conversationId}/upload`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${token}`,
        "content-type": `multipart/form-data; boundary=${boundary}`,
        "content-length": String(10 * MB),
      },
    });
    req.on("error", () => {});
    req.write(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="x.jpg"\r\nContent-Type: image/jpeg\r\n\r\n`,
    );
    req.write(Buffer.concat([jpeg, Buffer.alloc(MB, 1)]));
    await new Promise((resolve) => setTimeout(resolve, 100));
    req.destroy();
    const aborted = () => logLines.find((l) => l.msg === "request aborted by the client");
    for (let i = 0; i < 100 && !aborted(); i++) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(aborted()).toMatchObject({ level: 30 });
    expect(logLines.filter((l) => /database/i.test(l.msg ?? "") || (l.level ?? 0) >= 50)).toEqual([]);
    expect((await fetch(`${base}/api/health`)).status).toBe(200);
    // Nothing of it is left behind, on disk or in the thread.
    const thread = await app.inject({
      method: "GET",
      url: `/api/feedback/conversations/${conversationId}/messages`,
      headers: { authorization: `Bearer ${token}` },
    });
    expect(
      thread.json().data.messages.filter((m: { media_attachments: unknown[] }) => m.media_attachments.length),
    ).toEqual([]);
  });
});
