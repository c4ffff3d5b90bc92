import pino from "pino";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { testConfig } from "../../test/build-app.js";
import { loadConfig } from "../config.js";
import { type MessageMediaStandIn, startMessageMediaStandIn } from "../testing/messagemedia-stand-in.js";
import { createMessageMediaProvider, parseRetryAfter } from "./messagemedia-provider.js";
import { SmsSendError } from "./provider.js";
import { createSmsProvider } from "./select-provider.js";

const CREDENTIALS = { apiKey: "test-key", apiSecret: "test-secret" };
const PHONE = "+61412345678";
const silent = pino({ level: "silent" });

let standIn: MessageMediaStandIn;
const provider = (over: Partial<Parameters<typeof createMessageMediaProvider>[0]> = {}) =>
  createMessageMediaProvider({
    baseUrl: standIn.url,
    ...CREDENTIALS,
    sender: null,
    timeoutMs: 1000,
    logger: silent,
    ...over,
  });

async function refusal(promise: Promise<unknown>): Promise<SmsSendError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SmsSendError);
  return error as SmsSendError;
}

beforeAll(async () => {
  standIn = await startMessageMediaStandIn(CREDENTIALS);
});
afterAll(() => standIn.close());
beforeEach(() => {
  standIn.accepted.length = 0;
});

describe("MessageMedia provider", () => {
  it("sends with Basic auth and the documented body, returning the gateway's message_id", async () => {
    const result = await provider().send({ to: PHONE, body: "EMERGENCY CFA: shed fire" });

    expect(standIn.accepted).toHaveLength(1);
    const [accepted] = standIn.accepted;
    expect(accepted).toMatchObject({ destination_number: PHONE, content: "EMERGENCY CFA: shed fire" });
    expect(accepted!.source_number).toBeUndefined();
    expect(result.providerMessageId).toBe(accepted!.message_id);
  });

  it("sends from the configured alpha tag or number", async () => {
    await provider({ sender: "Turnout" }).send({ to: PHONE, body: "a" });
    await provider({ sender: "+61491570156" }).send({ to: PHONE, body: "b" });

    expect(standIn.accepted.map((m) => [m.source_number, m.source_number_type])).toEqual([
      ["Turnout", "ALPHANUMERIC"],
      ["+61491570156", "INTERNATIONAL"],
    ]);
  });

  it("keeps unicode text as it is", async () => {
    await provider().send({ to: PHONE, body: "Tree down on “Main Rd” 🌳" });
    expect(standIn.accepted[0]!.content).toBe("Tree down on “Main Rd” 🌳");
  });

  it("treats 5xx as retryable, with the gateway's message", async () => {
    standIn.script({ status: 503, body: { message: "Service unavailable" } });
    const error = await refusal(provider().send({ to: PHONE, body: "x" }));
    expect(error.retryable).toBe(true);
    expect(error.message).toBe("MessageMedia answered 503: Service unavailable");
    standIn.script({ status: 500 });
    expect((await refusal(provider().send({ to: PHONE, body: "x" }))).retryable).toBe(true);
  });

  it("treats 429 as retryable after the Retry-After the gateway asks for", async () => {
    standIn.script({ status: 429, retryAfter: "42" });
    const error = await refusal(provider().send({ to: PHONE, body: "x" }));
    expect(error).toMatchObject({ retryable: true, retryAfterSeconds: 42 });
  });

  it("does not retry other 4xx: the same request would be refused again", async () => {
    const invalid = await refusal(provider().send({ to: "0412345678", body: "x" }));
    expect(invalid.retryable).toBe(false);
    expect(invalid.message).toContain("MessageMedia answered 400: Invalid request");
    expect(invalid.message).toContain("E.164");

    const badKey = await refusal(provider({ apiSecret: "wrong" }).send({ to: PHONE, body: "x" }));
    expect(badKey).toMatchObject({ retryable: false, message: "MessageMedia answered 401: Unauthorized" });

    standIn.script({ status: 403, body: { message: "Feature not enabled" } });
    expect((await refusal(provider().send({ to: PHONE, body: "x" }))).retryable).toBe(false);
    expect(standIn.accepted).toEqual([]);
  });

  it("gives up on a gateway that does not answer within the time-out, as retryable", async () => {
    standIn.script("hang");
    const started = Date.now();
    const error = await refusal(provider({ timeoutMs: 300 }).send({ to: PHONE, body: "x" }));
    expect(Date.now() - started).toBeLessThan(2000);
    expect(error.retryable).toBe(true);
    expect(error.message).toBe("MessageMedia request failed: no answer within 300 ms");
  });

  it("treats a dropped connection and an unreachable gateway as retryable", async () => {
    standIn.script("drop");
    expect((await refusal(provider().send({ to: PHONE, body: "x" }))).retryable).toBe(true);
    const nowhere = await startMessageMediaStandIn(CREDENTIALS);
    const url = nowhere.url;
    await nowhere.close();
    expect((await refusal(provider({ baseUrl: url }).send({ to: PHONE, body: "x" }))).retryable).toBe(true);
  });

  it("checks the connection: connected, credentials refused, or unreachable", async () => {
    const ok = await provider().check();
    expect(ok).toMatchObject({ status: "connected", detail: null });
    expect(ok.responseTimeMs).toBeGreaterThanOrEqual(0);
    expect(ok.checkedAt).toBeInstanceOf(Date);

    expect(await provider({ apiKey: "nope" }).check()).toMatchObject({
      status: "error",
      detail: "credentials refused (401)",
    });

    const gone = await startMessageMediaStandIn(CREDENTIALS);
    const url = gone.url;
    await gone.close();
    expect(await provider({ baseUrl: url }).check()).toMatchObject({
      status: "disconnected",
      responseTimeMs: null,
    });
  });
});

describe("parseRetryAfter", () => {
  it("reads seconds or an HTTP date, capped at an hour", () => {
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(parseRetryAfter("30", now)).toBe(30);
    expect(parseRetryAfter("Thu, 01 Jan 2026 00:01:00 GMT", now)).toBe(60);
    expect(parseRetryAfter("99999", now)).toBe(3600);
    expect(parseRetryAfter("soon", now)).toBeUndefined();
    expect(parseRetryAfter(null, now)).toBeUndefined();
  });
});

describe("SMS_PROVIDER configuration", () => {
  it("defaults to the outbox, which sends nothing", () => {
    const config = testConfig();
    expect(config.smsProvider).toBe("outbox");
    const sms = createSmsProvider(config, silent);
    expect(sms).toMatchObject({ enabled: false, check: null });
    expect(sms.provider.name).toBe("outbox");
  });

  it("selects MessageMedia with its credentials, URL, time-out and sender", () => {
    const config = testConfig({
      SMS_PROVIDER: "http",
      SMS_HTTP_API_KEY: "key",
      SMS_HTTP_API_SECRET: "secret",
      SMS_SENDER: "Turnout",
    });
    expect(config.smsHttp).toEqual({
      baseUrl: "https://api.messagemedia.com",
      apiKey: "key",
      apiSecret: "secret",
      timeoutMs: 10_000,
    });
    const sms = createSmsProvider(config, silent);
    expect(sms.enabled).toBe(true);
    expect(sms.provider.name).toBe("messagemedia");
    expect(sms.sender).toBe("Turnout");
  });

  it("refuses to start without credentials, with a plain-http remote URL, or with a bad sender or time-out", () => {
    const base = { DATA_DIR: "/tmp/turnout-config-test", JWT_SECRET: "x".repeat(40) };
    expect(() => loadConfig({ ...base, SMS_PROVIDER: "http" })).toThrow(
      /SMS_HTTP_API_KEY is required when SMS_PROVIDER=http[\s\S]*SMS_HTTP_API_SECRET is required/,
    );
    const http = { ...base, SMS_PROVIDER: "http", SMS_HTTP_API_KEY: "k", SMS_HTTP_API_SECRET: "s" };
    expect(() => loadConfig({ ...http, SMS_HTTP_URL: "http://sms.example.com" })).toThrow(/must use https/);
    expect(() => loadConfig({ ...http, SMS_HTTP_URL: "http://127.0.0.1:9999" })).not.toThrow();
    expect(() => loadConfig({ ...http, SMS_SENDER: "Turnout Alerts Vic" })).toThrow(/SMS_SENDER/);
    expect(() => loadConfig({ ...http, SMS_HTTP_TIMEOUT_MS: "600000" })).toThrow(/SMS_HTTP_TIMEOUT_MS/);
    expect(() => loadConfig({ ...base, SMS_PROVIDER: "carrier-pigeon" })).toThrow(/'outbox' or 'http'/);
  });

  it("texts Australian mobiles only, unless SMS_ALLOWED_COUNTRIES lists others by ISO code", () => {
    const base = { DATA_DIR: "/tmp/turnout-config-test", JWT_SECRET: "x".repeat(40) };
    expect(loadConfig(base).smsAllowedCountries).toEqual(["AU"]);
    expect(loadConfig({ ...base, SMS_ALLOWED_COUNTRIES: " au, NZ ,AU" }).smsAllowedCountries).toEqual([
      "AU",
      "NZ",
    ]);
    expect(() => loadConfig({ ...base, SMS_ALLOWED_COUNTRIES: "AU,Narnia" })).toThrow(
      /SMS_ALLOWED_COUNTRIES/,
    );
    expect(() => loadConfig({ ...base, SMS_ALLOWED_COUNTRIES: " , " })).toThrow(/SMS_ALLOWED_COUNTRIES/);
  });

  it("refuses to start with an admin phone it would never text, and says which without the whole number", () => {
    const base = { DATA_DIR: "/tmp/turnout-config-test", JWT_SECRET: "x".repeat(40) };
    expect(loadConfig({ ...base, ADMIN_PHONES: "0412 000 901" }).adminPhones).toEqual(["+61412000901"]);
    const landline = () => loadConfig({ ...base, ADMIN_PHONES: "0412000901, 02 9999 8888" });
    expect(landline).toThrow(/ADMIN_PHONES: .*cannot receive SMS/);
    expect(landline).not.toThrow(/299998888/);
    expect(
      loadConfig({ ...base, ADMIN_PHONES: "+64211234567", SMS_ALLOWED_COUNTRIES: "AU,NZ" }).adminPhones,
    ).toEqual(["+64211234567"]);
  });
});
