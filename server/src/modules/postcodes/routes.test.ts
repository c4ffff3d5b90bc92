import type { PGlite } from "@electric-sql/pglite";
import { count } from "drizzle-orm";
import { drizzle as drizzlePg } from "drizzle-orm/node-postgres";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, type TestApp, testEngine } from "../../../test/build-app.js";
import type { Database } from "../../db/client.js";
import * as schema from "../../db/schema.js";
import { loadLocalities } from "../../shared/localities/localities.js";
import { ensurePostcodesSeeded } from "../../shared/localities/postcodes-seed.js";
import { POSTCODE_REQUESTS_PER_MINUTE } from "./routes.js";

/** A second Drizzle instance on the same database, as another server process would have. */
function anotherInstance(db: Database): Database {
  const client = (db as unknown as { $client: unknown }).$client;
  const other =
    testEngine === "pglite"
      ? drizzlePglite({ client: client as PGlite, schema })
      : drizzlePg({ client: client as pg.Pool, schema });
  return other as unknown as Database;
}

function spyLogger() {
  const messages: string[] = [];
  return { messages, info: (_obj: unknown, msg?: string) => void messages.push(msg ?? "") };
}

const NOT_FOUND = {
  success: false,
  message: "Location not found",
  error: "Location not found",
  errorType: "not_found",
};

describe("postcode lookup and suburb search", () => {
  let app: TestApp;
  const first = spyLogger();
  const second = spyLogger();

  beforeAll(async () => {
    app = await buildTestApp();
    // Two instances starting together on an empty table.
    await Promise.all([
      ensurePostcodesSeeded(app.db, first),
      ensurePostcodesSeeded(anotherInstance(app.db), second),
    ]);
  });
  afterAll(() => app.cleanup());

  const get = (url: string, remoteAddress = "127.0.0.1") =>
    app.inject({ method: "GET", url: `/api/postcode/${url}`, remoteAddress });

  describe("seeding", () => {
    it("seeds the table once when two instances start at the same time", async () => {
      const messages = [...first.messages, ...second.messages];
      expect(messages.filter((m) => m === "postcodes seeded")).toHaveLength(1);
      const [row] = await app.db.select({ n: count() }).from(schema.postcodes);
      expect(row?.n).toBe(loadLocalities().length);
      expect(row?.n).toBeGreaterThan(17_000);
    });

    it("shares one seeding between callers in one process", () => {
      expect(ensurePostcodesSeeded(app.db)).toBe(ensurePostcodesSeeded(app.db));
    });
  });

  describe("GET /api/postcode/lookup/:postcode", () => {
    it("finds Melbourne VIC for 3000, in the spec's shape", async () => {
      const res = await get("lookup/3000");
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({
        success: true,
        data: [{ postcode: "3000", suburb: "Melbourne", state_abbreviation: "VIC" }],
      });
    });

    it("lists Sydney NSW among the places of 2000", async () => {
      const { data } = (await get("lookup/2000")).json();
      expect(data.length).toBeGreaterThan(1);
      expect(data).toContainEqual({ postcode: "2000", suburb: "Sydney", state_abbreviation: "NSW" });
    });

    it("keeps the leading zero of NT postcodes", async () => {
      const res = await get("lookup/0800");
      expect(res.statusCode).toBe(200);
      expect(res.json().data).toContainEqual({
        postcode: "0800",
        suburb: "Darwin City",
        state_abbreviation: "NT",
      });
    });

    it("answers 404 'Location not found' for a postcode nobody lives at", async () => {
      const res = await get("lookup/9999");
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual(NOT_FOUND);
    });

    it.each(["30", "300a", "30000"])("rejects %s: a postcode is exactly 4 digits", async (postcode) => {
      const res = await get(`lookup/${postcode}`);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ success: false, errorType: "validation_error" });
      expect(res.json().message).toContain("exactly 4 digits");
    });
  });

  describe("GET /api/postcode/search/:text", () => {
    it("finds Richmond in several states, exact names first", async () => {
      const res = await get("search/richmond");
      expect(res.statusCode).toBe(200);
      const data: { suburb: string; state_abbreviation: string }[] = res.json().data;
      expect(data[0]?.suburb).toBe("Richmond");
      const exact = data.filter((l) => l.suburb === "Richmond");
      expect(data.slice(0, exact.length)).toEqual(exact);
      expect(new Set(exact.map((l) => l.state_abbreviation))).toEqual(
        new Set(["NSW", "QLD", "SA", "TAS", "VIC"]),
      );
      const names = data.map((l) => l.suburb);
      expect(names.indexOf("Richmond Hill")).toBeLessThan(names.indexOf("North Richmond"));
    });

    it("finds Fitzroy from 'fitz', ignoring case", async () => {
      const lower = (await get("search/fitz")).json().data;
      expect(lower).toContainEqual({ postcode: "3065", suburb: "Fitzroy", state_abbreviation: "VIC" });
      expect((await get("search/FITZ")).json().data).toEqual(lower);
    });

    it("finds suburbs containing the text after those starting with it", async () => {
      const names: string[] = (await get(`search/${encodeURIComponent("melbourne")}`))
        .json()
        .data.map((l: { suburb: string }) => l.suburb);
      expect(names[0]).toBe("Melbourne");
      expect(names).toContain("North Melbourne");
      const firstContaining = names.findIndex((n) => !n.toLowerCase().startsWith("melbourne"));
      expect(names.slice(firstContaining).every((n) => !n.toLowerCase().startsWith("melbourne"))).toBe(true);
    });

    it("searches text with spaces", async () => {
      const res = await get(`search/${encodeURIComponent(" north melb ")}`);
      expect(res.json().data).toContainEqual({
        postcode: "3051",
        suburb: "North Melbourne",
        state_abbreviation: "VIC",
      });
    });

    it("returns at most 20 places", async () => {
      const res = await get("search/park");
      expect(res.json().data).toHaveLength(20);
    });

    it("answers 404 'Location not found' when nothing matches", async () => {
      const res = await get("search/zzzq");
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual(NOT_FOUND);
    });

    it("treats % and _ as plain characters", async () => {
      const res = await get(`search/${encodeURIComponent("%_%")}`);
      expect(res.statusCode).toBe(404);
    });

    it("rejects 2-letter text with a clear message", async () => {
      const res = await get("search/ri");
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({
        success: false,
        errorType: "validation_error",
        message: "Type at least 3 letters of the suburb to search.",
      });
    });

    it.each([
      ["one letter", "r"],
      ["blank text", "%20%20%20"],
      ["over 60 characters", "a".repeat(61)],
    ])("rejects %s", async (_label, text) => {
      const res = await get(`search/${text}`);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ success: false, errorType: "validation_error" });
    });
  });

  describe("throttling", () => {
    it(`answers 429 after ${POSTCODE_REQUESTS_PER_MINUTE} requests a minute from one IP`, async () => {
      for (let i = 0; i < POSTCODE_REQUESTS_PER_MINUTE; i++) {
        expect((await get("lookup/3000", "10.9.8.7")).statusCode).toBe(200);
      }
      const res = await get("lookup/3000", "10.9.8.7");
      expect(res.statusCode).toBe(429);
      expect(res.json()).toMatchObject({ success: false, errorType: "rate_limited" });
      expect(Number(res.headers["retry-after"])).toBeGreaterThan(0);
      expect((await get("lookup/3000", "10.9.8.6")).statusCode).toBe(200);
    });
  });
});
