import { readFileSync } from "node:fs";
import path from "node:path";
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, type TestApp } from "../../../test/build-app.js";
import { repoRoot } from "../../paths.js";
import { isPrivateAddress, METRIC_NAMES } from "./metrics.js";

const KEY = "metrics-test-ingest-key-0123";
const TOKEN = "metrics-token-0123456789abcdef";
let app: TestApp;

beforeAll(async () => {
  app = await buildTestApp({ INGEST_API_KEY: KEY, METRICS_TOKEN: TOKEN });
});
afterAll(() => app.cleanup());

const scrape = async () => {
  const res = await app.inject({
    method: "GET",
    url: "/metrics",
    headers: { authorization: `Bearer ${TOKEN}` },
  });
  expect(res.statusCode).toBe(200);
  expect(res.headers["content-type"]).toContain("text/plain");
  return parsePrometheusTextFormat(res.body);
};
const family = (families: ReturnType<typeof parsePrometheusTextFormat>, name: string) =>
  families.find((f) => f.name === name);
const value = (
  families: ReturnType<typeof parsePrometheusTextFormat>,
  name: string,
  labels: Record<string, string>,
) =>
  Number(
    family(families, name)?.metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v))
      ?.value,
  );

/** The metric names the README's Metrics section lists (in backticks). */
function readmeMetricNames(): string[] {
  const readme = readFileSync(path.join(repoRoot, "README.md"), "utf8");
  const start = readme.indexOf("### Metrics (`/metrics`)");
  expect(start).toBeGreaterThan(0);
  const ends = ["\n### ", "\n## "].map((h) => readme.indexOf(h, start + 10)).filter((i) => i > 0);
  const section = readme.slice(start, Math.min(...ends));
  return [...new Set([...section.matchAll(/`((?:turnout|nodejs|process)_[a-z_]+)`/g)].map((m) => m[1]!))];
}

describe("GET /metrics", () => {
  it("wants the metrics token when one is set", async () => {
    expect((await app.inject({ method: "GET", url: "/metrics" })).statusCode).toBe(401);
    const wrong = await app.inject({
      method: "GET",
      url: "/metrics",
      headers: { authorization: "Bearer metrics-token-0123456789abcdeX" },
    });
    expect(wrong.statusCode).toBe(401);
  });

  it("serves every metric the README names, in the Prometheus text format", async () => {
    const names = readmeMetricNames();
    expect(names.length).toBeGreaterThanOrEqual(METRIC_NAMES.length);
    const families = await scrape();
    const missing = names.filter((n) => !family(families, n));
    expect(missing).toEqual([]);
    for (const n of METRIC_NAMES) expect(names).toContain(n);
  });

  it("counts ingest outcomes and times ingest requests; shows receivers and queues", async () => {
    const before = await scrape();
    const created = value(before, "turnout_ingest_messages_total", { outcome: "created" });
    const res = await app.inject({
      method: "POST",
      url: "/api/ingest/messages",
      headers: { authorization: `Bearer ${KEY}` },
      payload: {
        messages: [{ capcode: "0300001", message: "@@ALERT F2599 METRICS TEST" }, { capcode: "x" }],
      },
    });
    expect(res.statusCode).toBe(200);
    await app.inject({
      method: "POST",
      url: "/api/ingest/heartbeat",
      headers: { authorization: `Bearer ${KEY}` },
      payload: { spool_depth: 7, dead_letters: 2 },
    });
    const after = await scrape();
    expect(value(after, "turnout_ingest_messages_total", { outcome: "created" })).toBe(created + 1);
    expect(value(after, "turnout_ingest_messages_total", { outcome: "refused" })).toBeGreaterThanOrEqual(1);
    const histogram = family(after, "turnout_ingest_request_duration_seconds");
    expect(histogram?.type).toBe("HISTOGRAM");
    // The parser loses a histogram's labels when `le` comes first, as prom-client writes it: the
    // count is read from the text.
    const text = (
      await app.inject({ method: "GET", url: "/metrics", headers: { authorization: `Bearer ${TOKEN}` } })
    ).body;
    const count =
      /^turnout_ingest_request_duration_seconds_count\{route="\/api\/ingest\/messages",status="200"\} (\d+)$/m.exec(
        text,
      );
    expect(Number(count?.[1])).toBeGreaterThanOrEqual(1);
    const legacy = { receiver: "Legacy shared key (INGEST_API_KEY)" };
    expect(value(after, "turnout_receiver_spool_depth", legacy)).toBe(7);
    expect(value(after, "turnout_receiver_dead_letters", legacy)).toBe(2);
    expect(value(after, "turnout_receiver_last_seen_age_seconds", legacy)).toBeLessThan(60);
    expect(
      value(after, "turnout_receiver_state", { ...legacy, state: "unknown" }) +
        value(after, "turnout_receiver_state", { ...legacy, state: "ok" }),
    ).toBe(1);
    expect(value(after, "turnout_sms_queue", { status: "failed" })).toBeGreaterThanOrEqual(0);
    expect(value(after, "turnout_db_pool_connections", { state: "total" })).toBeGreaterThanOrEqual(1);
    expect(value(after, "turnout_live_clients", {})).toBe(0);
    expect(family(after, "nodejs_eventloop_lag_seconds")?.metrics.length).toBe(1);
  });
});

describe("without a token", () => {
  it("answers loopback and private addresses only", async () => {
    const open = await buildTestApp({});
    try {
      const local = await open.inject({ method: "GET", url: "/metrics", remoteAddress: "127.0.0.1" });
      expect(local.statusCode).toBe(200);
      const outside = await open.inject({ method: "GET", url: "/metrics", remoteAddress: "203.0.113.9" });
      expect(outside.statusCode).toBe(404);
    } finally {
      await open.cleanup();
    }
    expect(
      ["10.1.2.3", "172.16.0.1", "192.168.1.1", "::1", "fd00::1", "::ffff:10.0.0.1"].every(isPrivateAddress),
    ).toBe(true);
    expect(["8.8.8.8", "172.32.0.1", "2001:db8::1", "::ffff:1.1.1.1"].some(isPrivateAddress)).toBe(false);
  });
});
