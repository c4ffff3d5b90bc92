import type { InjectOptions, RouteOptions } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { routeAccess } from "../src/shared/guard.js";
import { buildTestApp, type TestApp } from "./build-app.js";
import { createUser, signIn, smsCount, waitForCode } from "./factories.js";
import { fieldsOf, fill, hasParams, sample } from "./route-samples.js";

/**
 * Tests generated from the app's own route table, so a route added later is covered without anyone
 * remembering to: every route refuses callers without the right role before it validates anything,
 * and no input, however malformed, gets a 5xx.
 */

const INGEST_KEY = "route-table-test-ingest-key";
// Bad input comes from another address than the sign-ins, so its rate limits never block them.
const FUZZ_ADDRESS = "203.0.113.7";

type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
type Route = { method: Method; url: string; route: RouteOptions };

let app: TestApp;
let adminPhone: string;
let adminToken: string;
let userToken: string;
let routes: Route[];

beforeAll(async () => {
  app = await buildTestApp({ INGEST_API_KEY: INGEST_KEY });
  adminPhone = (await createUser(app, { isAdmin: true })).phone;
  adminToken = await signIn(app, adminPhone);
  userToken = await signIn(app, (await createUser(app)).phone);
  // Conversation 1, which the admin may post to: multipart probes of its upload route reach the parser.
  const conversation = await app.inject({
    method: "POST",
    url: "/api/feedback/conversations",
    headers: { authorization: `Bearer ${adminToken}` },
    payload: { subject: "Fuzz", message: "uploads" },
  });
  expect(conversation.json().data.conversation.id).toBe(1);
  routes = app.routeTable
    .flatMap((route) =>
      [route.method].flat().map((method) => ({ method: method as Method, url: route.url, route })),
    )
    .filter((r) => r.url.startsWith("/api/") && ["GET", "POST", "PUT", "PATCH", "DELETE"].includes(r.method));
}, 120_000);
afterAll(() => app?.cleanup());

// ---------------------------------------------------------------------------------------------------
// The malformed inputs.
// ---------------------------------------------------------------------------------------------------

/** Path segments: loose and huge ids, NUL, a lone surrogate as UTF-8 bytes, invalid UTF-8, junk. */
const BAD_PARAMS = [
  "0x1",
  "%201",
  "1%20",
  "+1",
  "1e3",
  "1.0",
  "-1",
  "0",
  "2147483648",
  "9007199254740993",
  "99999999999999999999999999",
  "%00",
  "1%00",
  "%ED%A0%80",
  "%FF%FE",
  "%C0%80",
  "%E2%82",
  "abc",
  "x".repeat(3000),
];

/** Values put in one query field or one body field at a time. */
const BAD_VALUES: unknown[] = [
  "\u0000",
  "a\u0000b",
  "\ud800",
  "x\udfff",
  "x".repeat(200_000),
  "0x1",
  " 1",
  "+1",
  "1e400",
  2 ** 31,
  2 ** 53 + 2,
  -1,
  1.5,
  1e308,
  Number.MAX_VALUE,
  true,
  null,
  {},
  [],
  { $ne: 1 },
  [[["deep"]]],
  "2026-13-45T99:99:99Z",
  "<script>alert(1)</script>",
  // Adversarial long texts: runs that make a backtracking regex or a repeated scan super-linear.
  `${" ".repeat(80_000)}x`,
  `${"1".repeat(100_000)}x`,
  `${"a".repeat(100_000)}!`,
  `@@${" \t".repeat(40_000)}F`,
];

/** Query-string spellings of bad values (a query is text). */
const BAD_QUERY = [
  "%00",
  "%ED%A0%80",
  "%FF",
  "0x1",
  "%201",
  "%2B1",
  "1e3",
  "-1",
  "99999999999999999999",
  "9007199254740993",
  "x".repeat(5000),
];

let deepNesting = "1";
for (let i = 0; i < 5000; i++) deepNesting = `[${deepNesting}]`;

/** Whole bodies sent as they are. */
const BAD_BODIES: { payload: string; type: string }[] = [
  { payload: "", type: "application/json" },
  { payload: "null", type: "application/json" },
  { payload: "[]", type: "application/json" },
  { payload: '"text"', type: "application/json" },
  { payload: "123", type: "application/json" },
  { payload: "{", type: "application/json" },
  { payload: '{"a":"\\u0000"}', type: "application/json" },
  { payload: '{"a":"\\ud800"}', type: "application/json" },
  { payload: '{"__proto__":{"isAdmin":true},"constructor":{"prototype":{"x":1}}}', type: "application/json" },
  { payload: deepNesting, type: "application/json" },
  { payload: `{"a":"${"x".repeat(1_100_000)}"}`, type: "application/json" },
  { payload: "a=%00&phone=%ED%A0%80&address=1%00", type: "application/x-www-form-urlencoded" },
  { payload: "\u0000\u0001\u0002", type: "application/octet-stream" },
  { payload: "<x/>", type: "text/xml" },
  {
    payload:
      '--b\r\nContent-Disposition: form-data; name="file\u0000"; filename="a\u0000.png"\r\n\r\n\u0000\r\n--b--\r\n',
    type: "multipart/form-data; boundary=b",
  },
];

/** A multipart part as raw text: its header lines and its body, joined as a client would (CRLF). */
const part = (headers: string[], body: string, boundary = "b") =>
  `--${boundary}\r\n${headers.join("\r\n")}\r\n\r\n${body}\r\n`;
const fileHeaders = (name: string, filename = "a.png", type = "image/png") => [
  `Content-Disposition: form-data; name="${name}"; filename="${filename}"`,
  `Content-Type: ${type}`,
];
const PNG_HEAD = "\u0089PNG\r\n\u001a\n";

/**
 * Malformed and hostile multipart bodies, sent to every route (the upload routes read them; the others
 * must refuse them as cleanly): no or bad boundary, cut off anywhere, parts without a name, too many
 * parts and files, oversized headers and fields, odd encodings and file names, files under the name of
 * a field and the other way round.
 */
const MULTIPART_BODIES: { label: string; payload: string | Buffer; type: string }[] = [
  { label: "no boundary", payload: part(fileHeaders("file"), "x"), type: "multipart/form-data" },
  { label: "empty boundary", payload: "--\r\n\r\n", type: "multipart/form-data; boundary=" },
  {
    label: "quoted boundary",
    payload: `${part(fileHeaders("file"), "x")}--b--\r\n`,
    type: 'multipart/form-data; boundary="b"',
  },
  { label: "boundary of 200", payload: "--x", type: `multipart/form-data; boundary=${"b".repeat(200)}` },
  { label: "empty body", payload: "", type: "multipart/form-data; boundary=b" },
  { label: "closing only", payload: "--b--\r\n", type: "multipart/form-data; boundary=b" },
  {
    label: "cut in headers",
    payload: '--b\r\nContent-Disposition: form-data; name="fi',
    type: "multipart/form-data; boundary=b",
  },
  {
    label: "cut in a file",
    payload: `--b\r\n${fileHeaders("file").join("\r\n")}\r\n\r\n${PNG_HEAD}abc`,
    type: "multipart/form-data; boundary=b",
  },
  {
    label: "cut in a logo",
    payload: `--b\r\n${fileHeaders("logo").join("\r\n")}\r\n\r\n${PNG_HEAD}abc`,
    type: "multipart/form-data; boundary=b",
  },
  {
    label: "no closing boundary",
    payload: part(fileHeaders("file"), PNG_HEAD),
    type: "multipart/form-data; boundary=b",
  },
  {
    label: "no disposition",
    payload: `${part(["Content-Type: image/png"], PNG_HEAD)}--b--\r\n`,
    type: "multipart/form-data; boundary=b",
  },
  {
    label: "disposition without name",
    payload: `${part(["Content-Disposition: form-data"], "x")}--b--\r\n`,
    type: "multipart/form-data; boundary=b",
  },
  {
    label: "disposition garbage",
    payload: `${part(['Content-Disposition: ;;;="\\'], "x")}--b--\r\n`,
    type: "multipart/form-data; boundary=b",
  },
  {
    label: "empty file",
    payload: `${part(fileHeaders("file"), "")}${part(fileHeaders("logo"), "")}--b--\r\n`,
    type: "multipart/form-data; boundary=b",
  },
  {
    label: "two files",
    payload: `${part(fileHeaders("file"), PNG_HEAD)}${part(fileHeaders("file"), PNG_HEAD)}${part(fileHeaders("logo"), PNG_HEAD)}${part(fileHeaders("logo"), PNG_HEAD)}--b--\r\n`,
    type: "multipart/form-data; boundary=b",
  },
  {
    label: "twenty fields",
    payload: `${Array.from({ length: 20 }, (_, i) => part([`Content-Disposition: form-data; name="f${i}"`], "v")).join("")}--b--\r\n`,
    type: "multipart/form-data; boundary=b",
  },
  {
    label: "file as a field",
    payload: `${part(['Content-Disposition: form-data; name="file"'], "x")}${part(['Content-Disposition: form-data; name="logo"'], "x")}--b--\r\n`,
    type: "multipart/form-data; boundary=b",
  },
  {
    label: "message as a file",
    payload: `${part(fileHeaders("message", "m.txt", "text/plain"), "hello")}--b--\r\n`,
    type: "multipart/form-data; boundary=b",
  },
  {
    label: "huge message field",
    payload: `${part(['Content-Disposition: form-data; name="message"'], "m".repeat(300_000))}--b--\r\n`,
    type: "multipart/form-data; boundary=b",
  },
  {
    label: "message with NUL",
    payload: `${part(['Content-Disposition: form-data; name="message"'], "a\u0000b")}${part(fileHeaders("file"), PNG_HEAD)}--b--\r\n`,
    type: "multipart/form-data; boundary=b",
  },
  {
    label: "header of 100 KB",
    payload: `${part([...fileHeaders("file"), `X-Long: ${"h".repeat(100_000)}`], PNG_HEAD)}--b--\r\n`,
    type: "multipart/form-data; boundary=b",
  },
  {
    label: "five hundred headers",
    payload: `${part([...fileHeaders("file"), ...Array.from({ length: 500 }, (_, i) => `X-H${i}: v`)], PNG_HEAD)}--b--\r\n`,
    type: "multipart/form-data; boundary=b",
  },
  {
    label: "file name NUL and path",
    payload: `${part(fileHeaders("file", "../../a\u0000.png"), PNG_HEAD)}${part(fileHeaders("logo", "../../a\u0000.png"), PNG_HEAD)}--b--\r\n`,
    type: "multipart/form-data; boundary=b",
  },
  {
    label: "file name encoded",
    payload: `${part(["Content-Disposition: form-data; name=\"file\"; filename*=UTF-8''%ED%A0%80%FF.png", "Content-Type: image/png"], PNG_HEAD)}--b--\r\n`,
    type: "multipart/form-data; boundary=b",
  },
  {
    label: "base64 transfer encoding",
    payload: `${part([...fileHeaders("file"), "Content-Transfer-Encoding: base64"], "iVBORw0KGgo=")}--b--\r\n`,
    type: "multipart/form-data; boundary=b",
  },
  {
    label: "LF line ends",
    payload: '--b\nContent-Disposition: form-data; name="file"; filename="a.png"\n\nx\n--b--\n',
    type: "multipart/form-data; boundary=b",
  },
  {
    label: "nested multipart",
    payload: `${part(['Content-Disposition: form-data; name="file"', "Content-Type: multipart/mixed; boundary=c"], "--c\r\nx\r\n--c--")}--b--\r\n`,
    type: "multipart/form-data; boundary=b",
  },
  {
    label: "preamble junk",
    payload: `${"junk\r\n".repeat(1000)}${part(fileHeaders("file"), PNG_HEAD)}--b--\r\n`,
    type: "multipart/form-data; boundary=b",
  },
  {
    label: "bytes not UTF-8 in headers",
    payload: Buffer.concat([
      Buffer.from('--b\r\nContent-Disposition: form-data; name="'),
      Buffer.from([0xff, 0xfe, 0xc0]),
      Buffer.from('"; filename="\xff.png"\r\n\r\nx\r\n--b--\r\n'),
    ]),
    type: "multipart/form-data; boundary=b",
  },
  {
    label: "charset parameter",
    payload: `${part(fileHeaders("file"), PNG_HEAD)}--b--\r\n`,
    type: "multipart/form-data; charset=utf-16; boundary=b",
  },
  {
    label: "mixed, not form-data",
    payload: `${part(fileHeaders("file"), PNG_HEAD)}--b--\r\n`,
    type: "multipart/mixed; boundary=b",
  },
];

type Probe = { label: string; request: InjectOptions };

/** Every malformed request for one route, as an admin with the ingest key (the strongest caller). */
function probesFor({ method, url, route }: Route): Probe[] {
  const schema = (route.schema ?? {}) as { body?: unknown; querystring?: unknown; params?: unknown };
  const okPath = fill(url, method === "DELETE" ? "999999" : "1");
  const probes: Probe[] = [];
  if (hasParams(url)) {
    for (const p of BAD_PARAMS)
      probes.push({ label: `param ${p.slice(0, 20)}`, request: { method, url: fill(url, p) } });
  }
  const queryFields = [...fieldsOf(schema.querystring), "unknown_field"];
  for (const field of queryFields) {
    for (const v of BAD_QUERY) {
      probes.push({
        label: `query ${field}=${v.slice(0, 20)}`,
        request: { method, url: `${okPath}?${field}=${v}` },
      });
    }
    probes.push({
      label: `query ${field} repeated`,
      request: { method, url: `${okPath}?${field}=1&${field}=2` },
    });
  }
  if (method !== "GET") {
    for (const b of BAD_BODIES) {
      probes.push({
        label: `body ${b.type} ${b.payload.slice(0, 20)}`,
        request: { method, url: okPath, payload: b.payload, headers: { "content-type": b.type } },
      });
    }
    for (const b of MULTIPART_BODIES) {
      probes.push({
        label: `multipart ${b.label}`,
        request: { method, url: okPath, payload: b.payload, headers: { "content-type": b.type } },
      });
    }
    const base = sample(schema.body);
    for (const field of fieldsOf(schema.body)) {
      for (const v of BAD_VALUES) {
        const body = { ...(typeof base === "object" && base !== null ? base : {}), [field]: v };
        probes.push({
          label: `body.${field}=${JSON.stringify(v)?.slice(0, 20)}`,
          request: {
            method,
            url: okPath,
            payload: JSON.stringify(body),
            headers: { "content-type": "application/json" },
          },
        });
      }
    }
  }
  return probes;
}

async function refreshAdminToken(): Promise<void> {
  const res = await app.inject({
    method: "GET",
    url: "/api/auth/profile",
    headers: { authorization: `Bearer ${adminToken}` },
  });
  if (res.statusCode === 401) adminToken = await signIn(app, adminPhone);
}

describe("the route table", () => {
  it("lists the API's routes (the tests below cover each)", () => {
    expect(routes.length).toBeGreaterThan(60);
    expect(routes.map((r) => `${r.method} ${r.url}`)).toEqual(
      expect.arrayContaining([
        "GET /api/alerts/search",
        "POST /api/ingest/messages",
        "GET /api/admin/agencies",
      ]),
    );
  });

  it("refuses anonymous callers with 401 on every non-public route, before reading the body", async () => {
    const failures: string[] = [];
    for (const r of routes.filter((x) => routeAccess(x.route) !== "public")) {
      const res = await app.inject({
        method: r.method,
        url: fill(r.url, "0x1"),
        remoteAddress: FUZZ_ADDRESS,
        ...(r.method === "GET"
          ? {}
          : { payload: '{"junk":"\\u0000",', headers: { "content-type": "application/json" } }),
      });
      if (res.statusCode !== 401)
        failures.push(`${r.method} ${r.url}: ${res.statusCode} ${res.body.slice(0, 120)}`);
    }
    expect(failures).toEqual([]);
  });

  it("refuses signed-in users with 403 on every admin route, before reading the body", async () => {
    const admin = routes.filter((x) => routeAccess(x.route) === "admin");
    expect(admin.length).toBeGreaterThan(30);
    expect(
      admin.every((r) =>
        ["/api/admin/", "/api/message-grouping", "/api/feedback/"].some((p) => r.url.startsWith(p)),
      ),
    ).toBe(true);
    const failures: string[] = [];
    for (const r of admin) {
      const res = await app.inject({
        method: r.method,
        url: fill(r.url, "0x1"),
        remoteAddress: FUZZ_ADDRESS,
        headers: {
          authorization: `Bearer ${userToken}`,
          ...(r.method === "GET" ? {} : { "content-type": "application/json" }),
        },
        ...(r.method === "GET" ? {} : { payload: '{"junk":"\\u0000",' }),
      });
      if (res.statusCode !== 403)
        failures.push(`${r.method} ${r.url}: ${res.statusCode} ${res.body.slice(0, 120)}`);
    }
    expect(failures).toEqual([]);
  });

  it("refuses cross-site requests, and bodies other than JSON, on every state-changing route", async () => {
    const changing = routes.filter((r) => r.method !== "GET");
    expect(changing.map((r) => `${r.method} ${r.url}`)).toEqual(
      expect.arrayContaining(["POST /api/auth/request-otp", "POST /api/auth/register", "POST /api/messages"]),
    );
    const failures: string[] = [];
    for (const r of changing) {
      const url = fill(r.url, "1");
      // The ingest routes read a bearer token as their key: they get only the key.
      const credentials = /^\/api\/(ingest|messages)/.test(r.url)
        ? { "x-api-key": INGEST_KEY }
        : { authorization: `Bearer ${adminToken}` };
      const declared = (r.route.config as { bodyTypes?: string[] } | undefined)?.bodyTypes ?? [];
      const crossSite = await app.inject({
        method: r.method,
        url,
        remoteAddress: FUZZ_ADDRESS,
        headers: {
          "sec-fetch-site": "cross-site",
          "content-type": "application/json",
          ...credentials,
        },
        payload: "{}",
      });
      if (crossSite.statusCode !== 403)
        failures.push(
          `${r.method} ${r.url} cross-site: ${crossSite.statusCode} ${crossSite.body.slice(0, 100)}`,
        );
      for (const type of [
        "application/x-www-form-urlencoded",
        "text/plain",
        "multipart/form-data; boundary=b",
      ]) {
        if (declared.includes(type.split(";")[0]!)) continue;
        const res = await app.inject({
          method: r.method,
          url,
          remoteAddress: FUZZ_ADDRESS,
          headers: {
            "content-type": type,
            "sec-fetch-site": "same-origin",
            ...credentials,
          },
          payload: type.startsWith("multipart") ? "--b\r\n\r\n--b--\r\n" : '{"phone":"0412345678"}',
        });
        if (res.statusCode !== 415 || res.json().errorType !== "validation_error")
          failures.push(`${r.method} ${r.url} ${type}: ${res.statusCode} ${res.body.slice(0, 100)}`);
      }
    }
    expect(failures).toEqual([]);
    // PagerMon's readers still post forms to their endpoint.
    const pagermon = app.routeTable.find((r) => r.url === "/api/messages");
    expect(pagermon?.config).toMatchObject({ bodyTypes: ["application/x-www-form-urlencoded"] });
  });

  it("answers every malformed request on every route with a 4xx, never a 5xx, and stays healthy", async () => {
    const failures: string[] = [];
    let sent = 0;
    for (const r of routes) {
      for (const probe of probesFor(r)) {
        const res = await app.inject({
          ...probe.request,
          remoteAddress: FUZZ_ADDRESS,
          headers: {
            ...probe.request.headers,
            authorization: `Bearer ${adminToken}`,
            "x-api-key": INGEST_KEY,
          },
        });
        sent++;
        // A 2xx can be right (an unknown query field is ignored; ingest stores what it can); a 5xx never is.
        if (res.statusCode >= 500) {
          failures.push(`${r.method} ${r.url} [${probe.label}]: ${res.statusCode} ${res.body.slice(0, 160)}`);
        }
      }
      await refreshAdminToken();
    }
    expect(sent).toBeGreaterThan(2000);
    expect(failures).toEqual([]);
    const health = await app.inject({ method: "GET", url: "/api/health" });
    expect(health.statusCode).toBe(200);
    expect(health.json().status).toBe("ok");
  }, 600_000);

  it("signs in through a device-info header carrying NUL or a lone surrogate, ignoring the header", async () => {
    const phone = (await createUser(app)).phone;
    for (const info of ['{"browser":"\\u0000"}', '{"os":"\\ud800","device":"Mobile"}']) {
      const before = smsCount(app, phone);
      await app.inject({ method: "POST", url: "/api/auth/request-otp", payload: { phone } });
      const code = await waitForCode(app, phone, before);
      const res = await app.inject({
        method: "POST",
        url: "/api/auth/verify-otp",
        headers: { "x-device-id": "device-b", "x-device-info": info },
        payload: { phone, otp_code: code },
      });
      expect(res.statusCode, `${info}: ${res.body}`).toBe(200);
    }
  });
});
