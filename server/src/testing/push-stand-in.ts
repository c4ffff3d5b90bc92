import { createDecipheriv, createECDH, createPublicKey, hkdfSync, randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { jwtVerify } from "jose";

/** What the stand-in does with the next requests. */
export type StandInBehaviour = "ok" | "gone" | "error" | "hang";

export type ReceivedPush = {
  subscriptionId: number;
  /** TTL, Urgency and Topic as sent. */
  headers: { ttl: string | null; urgency: string | null; topic: string | null };
  /** The decrypted body, parsed as JSON (null when it is not JSON). */
  payload: unknown;
  /** The VAPID token's audience and subject. */
  vapid: { aud: string; sub: string; publicKey: string };
  receivedAt: number;
};

export type StandInSubscription = { endpoint: string; keys: { p256dh: string; auth: string } };

/**
 * A push service on 127.0.0.1 that speaks the Web Push protocol as a browser's push service does: it
 * hands out subscriptions (a P-256 key pair and an auth secret it keeps, as a browser would), and on each
 * POST checks the VAPID authorization (RFC 8292: an ES256 token for this origin, signed by the key in
 * `k`), decrypts the aes128gcm body (RFC 8291) and records what arrived. For tests and benchmarks.
 */
export async function startPushStandIn() {
  const receivers = new Map<number, { ecdh: ReturnType<typeof createECDH>; auth: Buffer }>();
  const received: ReceivedPush[] = [];
  const refused: { subscriptionId: number; reason: string }[] = [];
  const waiters = new Set<() => void>();
  let behaviour: StandInBehaviour = "ok";
  let nextId = 1;
  const hanging = new Set<IncomingMessage>();

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const id = Number(/^\/push\/(\d+)$/.exec(req.url ?? "")?.[1]);
      if (behaviour === "hang") {
        hanging.add(req);
        return;
      }
      const receiver = receivers.get(id);
      if (req.method !== "POST" || !receiver || behaviour === "gone") {
        res.writeHead(behaviour === "gone" ? 410 : 404).end();
        return;
      }
      if (behaviour === "error") {
        res.writeHead(503).end();
        return;
      }
      void accept(req, Buffer.concat(chunks), id, receiver)
        .then((push) => {
          received.push(push);
          for (const w of waiters) w();
          res.writeHead(201, { location: `/messages/${received.length}` }).end();
        })
        .catch((error: unknown) => {
          refused.push({
            subscriptionId: id,
            reason: error instanceof Error ? error.message : String(error),
          });
          res.writeHead(400).end();
        });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  async function accept(
    req: IncomingMessage,
    body: Buffer,
    subscriptionId: number,
    receiver: { ecdh: ReturnType<typeof createECDH>; auth: Buffer },
  ): Promise<ReceivedPush> {
    const match = /^vapid t=([^,\s]+),\s*k=([A-Za-z0-9_-]+)$/.exec(req.headers.authorization ?? "");
    if (!match) throw new Error("no VAPID authorization");
    const [, token, k] = match;
    const raw = Buffer.from(k!, "base64url");
    const key = createPublicKey({
      key: {
        kty: "EC",
        crv: "P-256",
        x: raw.subarray(1, 33).toString("base64url"),
        y: raw.subarray(33, 65).toString("base64url"),
      },
      format: "jwk",
    });
    const { payload } = await jwtVerify(token!, key, { algorithms: ["ES256"], audience: origin });
    if (typeof payload.exp !== "number" || payload.exp > Date.now() / 1000 + 24 * 3600)
      throw new Error("VAPID token expiry missing or over 24 hours away");
    if (req.headers["content-encoding"] !== "aes128gcm") throw new Error("not aes128gcm");
    const plain = decryptAes128gcm(body, receiver.ecdh, receiver.auth);
    let parsed: unknown = null;
    try {
      parsed = JSON.parse(plain.toString("utf8"));
    } catch {
      // recorded as null
    }
    const header = (name: string) => {
      const v = req.headers[name];
      return typeof v === "string" ? v : null;
    };
    return {
      subscriptionId,
      headers: { ttl: header("ttl"), urgency: header("urgency"), topic: header("topic") },
      payload: parsed,
      vapid: { aud: String(payload.aud), sub: String(payload.sub), publicKey: k! },
      receivedAt: Date.now(),
    };
  }

  return {
    origin,
    host: "127.0.0.1",
    received,
    refused,
    /** A fresh subscription, as PushSubscription.toJSON() gives it. */
    createSubscription(): StandInSubscription {
      const id = nextId++;
      const ecdh = createECDH("prime256v1");
      ecdh.generateKeys();
      const auth = randomBytes(16);
      receivers.set(id, { ecdh, auth });
      return {
        endpoint: `${origin}/push/${id}`,
        keys: { p256dh: ecdh.getPublicKey().toString("base64url"), auth: auth.toString("base64url") },
      };
    },
    setBehaviour(next: StandInBehaviour) {
      behaviour = next;
    },
    /** Resolves once `predicate` holds for what has arrived; rejects after `timeoutMs`. */
    waitFor(predicate: (received: ReceivedPush[]) => boolean, timeoutMs = 5000): Promise<ReceivedPush[]> {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (!predicate(received)) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve(received);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`push stand-in: not received within ${timeoutMs} ms (${received.length} so far)`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    async close() {
      for (const req of hanging) req.socket.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * Decrypts a Web Push message body as the browser does (RFC 8291 keys, RFC 8188 aes128gcm framing with
 * one record): written from the RFCs here rather than taken from the library the sender uses, so the
 * stand-in checks the sender's encryption instead of mirroring it.
 */
export function decryptAes128gcm(
  body: Buffer,
  receiver: ReturnType<typeof createECDH>,
  authSecret: Buffer,
): Buffer {
  const salt = body.subarray(0, 16);
  const recordSize = body.readUInt32BE(16);
  const idLength = body.readUInt8(20);
  const senderKey = body.subarray(21, 21 + idLength);
  const record = body.subarray(21 + idLength);
  if (idLength !== 65 || record.length > recordSize) throw new Error("not a Web Push aes128gcm body");
  const info = (label: string) => Buffer.from(`Content-Encoding: ${label}\0`, "ascii");
  const keyInfo = Buffer.concat([
    Buffer.from("WebPush: info\0", "ascii"),
    receiver.getPublicKey(),
    senderKey,
  ]);
  const ikm = Buffer.from(hkdfSync("sha256", receiver.computeSecret(senderKey), authSecret, keyInfo, 32));
  const key = Buffer.from(hkdfSync("sha256", ikm, salt, info("aes128gcm"), 16));
  const nonce = Buffer.from(hkdfSync("sha256", ikm, salt, info("nonce"), 12));
  const decipher = createDecipheriv("aes-128-gcm", key, nonce);
  decipher.setAuthTag(record.subarray(record.length - 16));
  const padded = Buffer.concat([decipher.update(record.subarray(0, record.length - 16)), decipher.final()]);
  // The last record ends with the delimiter 0x02 and any zero padding after it.
  let end = padded.length - 1;
  while (end >= 0 && padded[end] === 0) end--;
  if (padded[end] !== 2) throw new Error("the record's padding delimiter is missing");
  return padded.subarray(0, end);
}

export type PushStandIn = Awaited<ReturnType<typeof startPushStandIn>>;
