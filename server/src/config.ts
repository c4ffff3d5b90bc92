import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import {
  checkSmsDestination,
  DEFAULT_RESPONSE_WINDOW_HOURS,
  DEFAULT_SMS_COUNTRIES,
  isKnownCountry,
  maskPhone,
  normalizePhone,
  RESPONSE_WINDOW_HOURS_MAX,
  RESPONSE_WINDOW_HOURS_MIN,
} from "@turnout/domain";
import { z } from "zod";
import { repoRoot } from "./paths.js";

/** Every setting the server reads, parsed once from the environment. */
export type Config = {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | null;
  redisUrl: string | null;
  redisPrefix: string;
  jwtSecret: Uint8Array;
  adminPhones: string[];
  ingestApiKey: string | null;
  smsProvider: "outbox" | "http";
  smsOutboxFile: string;
  /** MessageMedia settings; set exactly when smsProvider is 'http'. */
  smsHttp: { baseUrl: string; apiKey: string; apiSecret: string; timeoutMs: number } | null;
  /** Sender shown on phones (alpha tag or registered number); null: the account's default. */
  smsSender: string | null;
  /** ISO country codes whose mobile numbers may receive SMS (issue 27): Australia unless listed. */
  smsAllowedCountries: string[];
  appEnv: "development" | "production";
  publicUrl: string | null;
  webDistDir: string;
  logLevel: string;
  trustProxy: boolean;
  /** The ffmpeg binary for feedback video posters and conversion (a name on PATH or a path). */
  ffmpegPath: string;
  /**
   * Slow clients (issue 28): a request's headers must arrive within `headersTimeoutMs` and the whole
   * request (an upload included) within `requestTimeoutMs`, or the connection is answered 408 and closed.
   */
  http: { headersTimeoutMs: number; requestTimeoutMs: number };
  /** Uploaded media (issue 28): what is accepted and how much video work may run. */
  media: {
    /** Most pixels an uploaded image may declare in its header (feedback photos, agency logos). */
    maxImagePixels: number;
    /** Longest video accepted, in seconds (ffprobe, before any conversion). */
    maxVideoSeconds: number;
    /** Most pixels a video frame may have. */
    maxVideoPixels: number;
    /** ffmpeg processes at once across every instance sharing the database (posters and conversions). */
    concurrency: number;
    /** `-threads` given to each ffmpeg. */
    ffmpegThreads: number;
    /** Videos one member may have waiting for or in processing at once. */
    pendingPerUser: number;
    /** Bytes one member may upload in 24 hours (admins are not limited). */
    dailyBytesPerUser: number;
  };
  /** Hours after a job's first page during which members can say whether they are responding. */
  responseWindowHours: number;
  /**
   * Web Push (issue 15): VAPID keys given in the environment (null: generated once and kept, see
   * push/vapid.ts), the subject push services may contact, and hosts besides the browsers' push
   * services that subscriptions may point at (a stand-in in tests; plain http only on loopback).
   */
  push: {
    vapidKeys: { publicKey: string; privateKey: string } | null;
    subject: string;
    extraEndpointHosts: string[];
  };
  /**
   * The silence checker and its alarms (issue 33): how often one instance checks receivers and the
   * delivery side, and the thresholds of the delivery alarms within `windowMinutes`.
   */
  monitor: {
    checkMs: number;
    windowMinutes: number;
    smsFailures: number;
    pushFailures: number;
    ruleBacklog: number;
  };
  /**
   * GET /metrics (issue 33): the bearer token it wants; null: answered only to loopback and private
   * addresses (a scraper on the same host or network), 404 to anyone else.
   */
  metricsToken: string | null;
  /**
   * The map of jobs and the station board (issue 34): the tile URL template ({z}/{x}/{y}, and {s} for
   * a subdomain), its attribution, and how many hours of jobs the member's map shows by default.
   */
  map: { tileUrl: string; tileAttribution: string; hours: number };
};

/** OpenStreetMap's standard tiles, as its tile usage policy asks to be credited. */
export const DEFAULT_TILE_URL = "https://tile.openstreetmap.org/{z}/{x}/{y}.png";
export const DEFAULT_TILE_ATTRIBUTION = "© OpenStreetMap contributors";

const envSchema = z
  .object({
    PORT: z.coerce.number().int().min(0).max(65535).default(3000),
    HOST: z.string().min(1).default("127.0.0.1"),
    DATA_DIR: z.string().min(1).default("./data"),
    DATABASE_URL: z.string().url().optional(),
    REDIS_URL: z.string().url().optional(),
    REDIS_PREFIX: z.string().min(1).default("turnout:"),
    JWT_SECRET: z.string().min(32, "JWT_SECRET must be at least 32 characters").optional(),
    ADMIN_PHONES: z.string().optional(),
    INGEST_API_KEY: z.string().min(16, "INGEST_API_KEY must be at least 16 characters").optional(),
    SMS_PROVIDER: z.enum(["outbox", "http"], "SMS_PROVIDER must be 'outbox' or 'http'").default("outbox"),
    SMS_OUTBOX_FILE: z.string().min(1).optional(),
    // The http provider speaks MessageMedia's Messages API (server/src/sms/messagemedia-provider.ts).
    SMS_HTTP_URL: z
      .string()
      .url()
      .refine(secureOrLoopback, "SMS_HTTP_URL must use https (plain http only on 127.0.0.1 or localhost)")
      .default("https://api.messagemedia.com"),
    SMS_HTTP_API_KEY: z.string().min(1).optional(),
    SMS_HTTP_API_SECRET: z.string().min(1).optional(),
    // The SMS worker renews its 20 s claim while a request is out, so a slow request is never taken over.
    SMS_HTTP_TIMEOUT_MS: z.coerce.number().int().min(1000).max(60_000).default(10_000),
    SMS_SENDER: z
      .string()
      .trim()
      .regex(
        /^(\+[1-9]\d{6,14}|[A-Za-z0-9][A-Za-z0-9 ]{0,10})$/,
        "SMS_SENDER must be an alpha tag of at most 11 letters or digits, or a number in +61... form",
      )
      .optional(),
    SMS_ALLOWED_COUNTRIES: z
      .string()
      .transform((v) => [
        ...new Set(
          v
            .split(",")
            .map((c) => c.trim().toUpperCase())
            .filter(Boolean),
        ),
      ])
      .refine(
        (codes) => codes.length > 0 && codes.every(isKnownCountry),
        "SMS_ALLOWED_COUNTRIES must list ISO 3166 country codes separated by commas, e.g. AU,NZ",
      )
      .optional(),
    APP_ENV: z.enum(["development", "production"]).default("production"),
    PUBLIC_URL: z.string().url().optional(),
    WEB_DIST_DIR: z.string().min(1).optional(),
    LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
    TRUST_PROXY: z.enum(["true", "false", "1", "0"]).optional(),
    FFMPEG_PATH: z.string().min(1).default("ffmpeg"),
    HEADERS_TIMEOUT_MS: intSetting("HEADERS_TIMEOUT_MS", 100, 600_000, 20_000),
    REQUEST_TIMEOUT_MS: intSetting("REQUEST_TIMEOUT_MS", 1000, 3_600_000, 600_000),
    MAX_IMAGE_PIXELS: intSetting("MAX_IMAGE_PIXELS", 1, 268_402_689, 40_000_000),
    MAX_VIDEO_SECONDS: intSetting("MAX_VIDEO_SECONDS", 1, 3600, 300),
    MAX_VIDEO_PIXELS: intSetting("MAX_VIDEO_PIXELS", 1, 35_389_440, 8_294_400),
    MEDIA_CONCURRENCY: intSetting("MEDIA_CONCURRENCY", 1, 16, 1),
    MEDIA_FFMPEG_THREADS: intSetting("MEDIA_FFMPEG_THREADS", 1, 16, 1),
    MEDIA_PENDING_PER_USER: intSetting("MEDIA_PENDING_PER_USER", 1, 100, 2),
    UPLOAD_MB_PER_DAY: intSetting("UPLOAD_MB_PER_DAY", 1, 100_000, 500),
    RESPONSE_WINDOW_HOURS: z.coerce
      .number()
      .int(`RESPONSE_WINDOW_HOURS must be a whole number of hours`)
      .min(
        RESPONSE_WINDOW_HOURS_MIN,
        `RESPONSE_WINDOW_HOURS must be ${RESPONSE_WINDOW_HOURS_MIN} to ${RESPONSE_WINDOW_HOURS_MAX}`,
      )
      .max(
        RESPONSE_WINDOW_HOURS_MAX,
        `RESPONSE_WINDOW_HOURS must be ${RESPONSE_WINDOW_HOURS_MIN} to ${RESPONSE_WINDOW_HOURS_MAX}`,
      )
      .default(DEFAULT_RESPONSE_WINDOW_HOURS),
    VAPID_PUBLIC_KEY: z
      .string()
      .regex(/^[A-Za-z0-9_-]{80,100}$/, "VAPID_PUBLIC_KEY must be a base64url P-256 public key")
      .optional(),
    VAPID_PRIVATE_KEY: z
      .string()
      .regex(/^[A-Za-z0-9_-]{40,50}$/, "VAPID_PRIVATE_KEY must be a base64url P-256 private key")
      .optional(),
    VAPID_SUBJECT: z
      .string()
      .regex(/^(mailto:|https:\/\/)\S+$/, "VAPID_SUBJECT must be a mailto: or https: address")
      .default("mailto:admin@turnout.invalid"),
    PUSH_EXTRA_ENDPOINT_HOSTS: z.string().optional(),
    MONITOR_CHECK_SECONDS: intSetting("MONITOR_CHECK_SECONDS", 1, 3600, 15),
    ALARM_WINDOW_MINUTES: intSetting("ALARM_WINDOW_MINUTES", 1, 1440, 15),
    ALARM_SMS_FAILURES: intSetting("ALARM_SMS_FAILURES", 1, 1_000_000, 5),
    ALARM_PUSH_FAILURES: intSetting("ALARM_PUSH_FAILURES", 1, 1_000_000, 20),
    ALARM_RULE_BACKLOG: intSetting("ALARM_RULE_BACKLOG", 1, 10_000_000, 500),
    METRICS_TOKEN: z.string().min(16, "METRICS_TOKEN must be at least 16 characters").optional(),
    MAP_TILE_URL: z
      .string()
      .refine(
        (v) => isTileTemplate(v),
        "MAP_TILE_URL must be an https URL template with {z}, {x} and {y} (plain http only on 127.0.0.1 or localhost)",
      )
      .default(DEFAULT_TILE_URL),
    MAP_TILE_ATTRIBUTION: z.string().trim().min(1).max(300).default(DEFAULT_TILE_ATTRIBUTION),
    MAP_HOURS: intSetting("MAP_HOURS", 1, 168, 24),
  })
  .superRefine((e, ctx) => {
    if (Boolean(e.VAPID_PUBLIC_KEY) !== Boolean(e.VAPID_PRIVATE_KEY))
      ctx.addIssue({
        code: "custom",
        path: ["VAPID_PRIVATE_KEY"],
        message: "VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY are given together or not at all",
      });
    // An admin whose phone Turnout will not text can never sign in: say so at start, not at first use.
    for (const phone of parseAdminPhones(e.ADMIN_PHONES)) {
      const checked = checkSmsDestination(phone, e.SMS_ALLOWED_COUNTRIES ?? DEFAULT_SMS_COUNTRIES);
      if (!checked.ok)
        ctx.addIssue({
          code: "custom",
          path: ["ADMIN_PHONES"],
          message: `${maskPhone(phone)}: ${checked.message}`,
        });
    }
    if (e.SMS_PROVIDER !== "http") return;
    for (const key of ["SMS_HTTP_API_KEY", "SMS_HTTP_API_SECRET"] as const) {
      if (!e[key])
        ctx.addIssue({ code: "custom", path: [key], message: `${key} is required when SMS_PROVIDER=http` });
    }
  });

/** A whole-number setting from `min` to `max`, with its default; the error names the variable and range. */
function intSetting(name: string, min: number, max: number, fallback: number) {
  const message = `${name} must be a whole number from ${min} to ${max}`;
  return z.coerce.number(message).int(message).min(min, message).max(max, message).default(fallback);
}

/** A tile URL template: https (http on loopback) with {z}, {x} and {y}, {s} only in the host. */
function isTileTemplate(value: string): boolean {
  if (!["{z}", "{x}", "{y}"].every((part) => value.includes(part))) return false;
  try {
    return secureOrLoopback(value.replace(/\{[sxyzr]\}/g, "a"));
  } catch {
    return false;
  }
}

/**
 * The CSP source of a tile URL template: its origin, with a {s} subdomain as a wildcard
 * ("https://{s}.tile.example.org/..." is "https://*.tile.example.org").
 */
export function tileSource(template: string): string {
  const url = new URL(template.replace(/\{s\}/g, "subdomain").replace(/\{[xyzr]\}/g, "0"));
  const host = template.includes("{s}") ? url.host.replace(/^subdomain\./, "*.") : url.host;
  return `${url.protocol}//${host}`;
}

function secureOrLoopback(value: string): boolean {
  const url = new URL(value);
  return (
    url.protocol === "https:" ||
    (url.protocol === "http:" && ["127.0.0.1", "localhost", "[::1]"].includes(url.hostname))
  );
}

/**
 * Reads and validates the environment into a Config.
 * Throws an Error naming every invalid variable, so a bad deployment fails at start, not at first use.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = envSchema.safeParse(emptyToUndefined(env));
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
    throw new Error(`Invalid configuration:\n  ${lines.join("\n  ")}`);
  }
  const e = parsed.data;
  const dataDir = path.resolve(e.DATA_DIR);
  return {
    port: e.PORT,
    host: e.HOST,
    dataDir,
    databaseUrl: e.DATABASE_URL ?? null,
    redisUrl: e.REDIS_URL ?? null,
    redisPrefix: e.REDIS_PREFIX,
    jwtSecret: new TextEncoder().encode(e.JWT_SECRET ?? loadOrCreateSecret(dataDir)),
    adminPhones: parseAdminPhones(e.ADMIN_PHONES),
    ingestApiKey: e.INGEST_API_KEY ?? null,
    smsProvider: e.SMS_PROVIDER,
    smsOutboxFile: path.resolve(e.SMS_OUTBOX_FILE ?? path.join(dataDir, "sms-outbox.jsonl")),
    smsHttp:
      e.SMS_PROVIDER === "http"
        ? {
            baseUrl: e.SMS_HTTP_URL,
            apiKey: e.SMS_HTTP_API_KEY!,
            apiSecret: e.SMS_HTTP_API_SECRET!,
            timeoutMs: e.SMS_HTTP_TIMEOUT_MS,
          }
        : null,
    smsSender: e.SMS_SENDER ?? null,
    smsAllowedCountries: e.SMS_ALLOWED_COUNTRIES ?? [...DEFAULT_SMS_COUNTRIES],
    appEnv: e.APP_ENV,
    publicUrl: e.PUBLIC_URL ?? null,
    webDistDir: path.resolve(e.WEB_DIST_DIR ?? path.join(repoRoot, "web/dist")),
    logLevel: e.LOG_LEVEL,
    trustProxy: e.TRUST_PROXY === "true" || e.TRUST_PROXY === "1",
    ffmpegPath: e.FFMPEG_PATH,
    http: { headersTimeoutMs: e.HEADERS_TIMEOUT_MS, requestTimeoutMs: e.REQUEST_TIMEOUT_MS },
    media: {
      maxImagePixels: e.MAX_IMAGE_PIXELS,
      maxVideoSeconds: e.MAX_VIDEO_SECONDS,
      maxVideoPixels: e.MAX_VIDEO_PIXELS,
      concurrency: e.MEDIA_CONCURRENCY,
      ffmpegThreads: e.MEDIA_FFMPEG_THREADS,
      pendingPerUser: e.MEDIA_PENDING_PER_USER,
      dailyBytesPerUser: e.UPLOAD_MB_PER_DAY * 1024 * 1024,
    },
    responseWindowHours: e.RESPONSE_WINDOW_HOURS,
    push: {
      vapidKeys:
        e.VAPID_PUBLIC_KEY && e.VAPID_PRIVATE_KEY
          ? { publicKey: e.VAPID_PUBLIC_KEY, privateKey: e.VAPID_PRIVATE_KEY }
          : null,
      subject: e.VAPID_SUBJECT,
      extraEndpointHosts: (e.PUSH_EXTRA_ENDPOINT_HOSTS ?? "")
        .split(",")
        .map((h) => h.trim())
        .filter(Boolean),
    },
    monitor: {
      checkMs: e.MONITOR_CHECK_SECONDS * 1000,
      windowMinutes: e.ALARM_WINDOW_MINUTES,
      smsFailures: e.ALARM_SMS_FAILURES,
      pushFailures: e.ALARM_PUSH_FAILURES,
      ruleBacklog: e.ALARM_RULE_BACKLOG,
    },
    metricsToken: e.METRICS_TOKEN ?? null,
    map: { tileUrl: e.MAP_TILE_URL, tileAttribution: e.MAP_TILE_ATTRIBUTION, hours: e.MAP_HOURS },
  };
}

function emptyToUndefined(env: NodeJS.ProcessEnv): Record<string, string | undefined> {
  return Object.fromEntries(Object.entries(env).map(([k, v]) => [k, v === "" ? undefined : v]));
}

function parseAdminPhones(value: string | undefined): string[] {
  if (!value) return [];
  const phones = value
    .split(",")
    .map((p) => p.trim())
    .filter(Boolean)
    .map(normalizePhone);
  return [...new Set(phones)];
}

/** A generated key kept in DATA_DIR, so tokens survive restarts without any set-up. */
function loadOrCreateSecret(dataDir: string): string {
  const file = path.join(dataDir, "jwt-secret");
  try {
    const existing = readFileSync(file, "utf8").trim();
    if (existing.length >= 32) return existing;
  } catch {
    // first start: create it below
  }
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(48).toString("base64url");
  writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  return secret;
}
