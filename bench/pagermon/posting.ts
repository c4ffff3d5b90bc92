/**
 * The HTTP side of the PagerMon comparisons: keep-alive requests, and one message per POST /api/messages
 * (PagerMon's reader request) from sequential posters, the servers under test taking turns. Used by
 * compare.ts (Turnout against PagerMon on the same data) and ingest-floor.ts (both against servers that
 * do nothing but the HTTP, or one durable INSERT).
 */
import http from "node:http";
import { PagerTraffic, rng } from "../server/lib/messages.js";

/** Ingest alternates between the servers in slices of this many seconds. */
export const SLICE_S = 1;

/** Keep-alive HTTP for every request of the benchmark (every server), as a browser or reader holds its connection. */
export const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

export type Answer = { status: number; text: string; ms: number; bytes: number; setCookie: string[] };

/** One HTTP request, timed from the call until the whole body has arrived. */
export function request(
  url: string,
  options: { method?: "GET" | "POST"; headers?: Record<string, string>; body?: string } = {},
): Promise<Answer> {
  const headers = { ...options.headers };
  if (options.body !== undefined) headers["content-length"] = String(Buffer.byteLength(options.body));
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = http.request(url, { method: options.method ?? "GET", agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        const body = Buffer.concat(chunks);
        resolve({
          status: res.statusCode ?? 0,
          text: body.toString("utf8"),
          ms: performance.now() - started,
          bytes: body.length,
          setCookie: res.headers["set-cookie"] ?? [],
        });
      });
      res.on("error", reject);
    });
    req.setTimeout(600_000, () => req.destroy(new Error(`${url}: no answer within 600 s`)));
    req.on("error", reject);
    req.end(options.body);
  });
}

/** One poster's messages: the ingest benchmark's generator (seed 42), so each server gets the same ones. */
export function messageStream(capcodes: string[]) {
  const traffic = new PagerTraffic(42);
  const random = rng(42);
  return () =>
    new URLSearchParams({
      address: capcodes[Math.floor(random() * capcodes.length)]!,
      message: traffic.next().raw,
      datetime: String(Math.floor(Date.now() / 1000)),
      source: "pagermon-reader",
    }).toString();
}

export type IngestSide = { name: string; url: string; key: string; next: () => string };
export type IngestResult = { latencies: number[]; seconds: number; duplicates: number };

/** PagerMon's reader request (client/reader.js): a form, the key in an `apikey` header, no cookie. */
export async function post(side: IngestSide): Promise<{ ms: number; duplicate: boolean }> {
  const a = await request(`${side.url}/api/messages`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", apikey: side.key },
    body: side.next(),
  });
  if (a.status !== 200 || !(/^\d+$/.test(a.text) || a.text === "Ignoring duplicate"))
    throw new Error(`${side.name} POST /api/messages: ${a.status} ${a.text.slice(0, 300)}`);
  return { ms: a.ms, duplicate: a.text === "Ignoring duplicate" };
}

/** `posters` sequential posters per server, the servers taking turns in slices of SLICE_S seconds. */
export async function ingest(sides: IngestSide[], posters: number, seconds: number): Promise<IngestResult[]> {
  const results = sides.map(() => ({ latencies: [] as number[], seconds: 0, duplicates: 0 }));
  const slices = Math.max(1, Math.round(seconds / SLICE_S));
  for (let s = 0; s < slices; s++) {
    for (let k = 0; k < sides.length; k++) {
      const i = (s + k) % sides.length;
      const side = sides[i]!;
      const result = results[i]!;
      const t0 = performance.now();
      const end = t0 + SLICE_S * 1000;
      await Promise.all(
        Array.from({ length: posters }, async () => {
          while (performance.now() < end) {
            const r = await post(side);
            result.latencies.push(r.ms);
            if (r.duplicate) result.duplicates += 1;
          }
        }),
      );
      result.seconds += (performance.now() - t0) / 1000;
    }
  }
  return results;
}
