import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { UNMAPPED_AGENCY } from "@turnout/domain";
import { asc, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agencies, securityConfig, users } from "../src/db/schema.js";
import { SECURITY_DEFAULTS } from "../src/db/security-defaults.js";
import { seedReferenceData } from "../src/db/seed.js";
import { buildTestApp, type TestApp, testConfig } from "./build-app.js";

describe("the foundation app", () => {
  let app: TestApp;
  let webDir: string;

  beforeAll(async () => {
    webDir = testConfig().dataDir;
    mkdirSync(path.join(webDir, "assets"), { recursive: true });
    writeFileSync(
      path.join(webDir, "index.html"),
      "<!doctype html><title>Turnout</title><div id=root></div>",
    );
    writeFileSync(path.join(webDir, "assets", "app-abc123.js"), "console.log('hi')");
    writeFileSync(path.join(webDir, "sw.js"), "self.addEventListener('fetch', () => {})");
    app = await buildTestApp({ WEB_DIST_DIR: webDir, ADMIN_PHONES: "0412 345 678, +61498765432" });
  });
  afterAll(() => app.cleanup());

  describe("reference data", () => {
    it("seeds the four sign-up agencies and the UNMAPPED placeholder", async () => {
      const rows = await app.db.select().from(agencies).orderBy(asc(agencies.id));
      expect(rows.map((r) => r.code)).toEqual(["FRV", "CFA", "SES", "Other", "UNMAPPED"]);
      expect(rows.find((r) => r.code === "UNMAPPED")?.name).toBe(UNMAPPED_AGENCY.name);
      expect(UNMAPPED_AGENCY.name).toBe("Unmapped Capcodes");
    });

    it("seeds the security configuration, including the default of two device sessions", async () => {
      const [row] = await app.db
        .select()
        .from(securityConfig)
        .where(eq(securityConfig.key, "max_device_sessions"));
      expect(row?.value).toBe("2");
    });

    it("seeding again changes nothing and keeps an admin's edits", async () => {
      await app.db.update(agencies).set({ name: "Renamed by admin" }).where(eq(agencies.code, "CFA"));
      await seedReferenceData(app.db);
      const rows = await app.db.select().from(agencies);
      expect(rows).toHaveLength(5);
      expect(rows.find((r) => r.code === "CFA")?.name).toBe("Renamed by admin");
    });

    it("seeding again brings an unedited security setting's description up to date, not an edited one", async () => {
      const [admin] = await app.db.select().from(users).where(eq(users.isAdmin, true));
      await app.db
        .update(securityConfig)
        .set({ description: "Wrong codes before the phone is locked out" })
        .where(eq(securityConfig.key, "otp_max_failed_attempts"));
      await app.db
        .update(securityConfig)
        .set({ description: "Ours", updatedBy: admin?.id })
        .where(eq(securityConfig.key, "otp_requests_per_ip"));
      await seedReferenceData(app.db);
      const rows = await app.db.select().from(securityConfig);
      const description = (key: string) => rows.find((r) => r.key === key)?.description;
      expect(description("otp_max_failed_attempts")).toBe(
        SECURITY_DEFAULTS.otp_max_failed_attempts.description,
      );
      expect(description("otp_requests_per_ip")).toBe("Ours");
    });
  });

  describe("ADMIN_PHONES bootstrap", () => {
    it("creates each phone, normalised, as an active verified admin named Admin Admin", async () => {
      const admins = await app.db
        .select()
        .from(users)
        .where(eq(users.isAdmin, true))
        .orderBy(asc(users.phone));
      expect(admins.map((u) => u.phone)).toEqual(["+61412345678", "+61498765432"]);
      for (const a of admins) {
        expect(a).toMatchObject({ firstName: "Admin", lastName: "Admin", isActive: true, isVerified: true });
      }
    });

    it("promotes an existing user without renaming them", async () => {
      await app.db.insert(users).values({ phone: "+61411111111", firstName: "Jo", lastName: "Citizen" });
      const { ensureAdmins } = await import("../src/modules/users/service.js");
      await ensureAdmins(app.db, ["+61411111111"]);
      const [jo] = await app.db.select().from(users).where(eq(users.phone, "+61411111111"));
      expect(jo).toMatchObject({ firstName: "Jo", lastName: "Citizen", isAdmin: true, isActive: true });
    });
  });

  describe("error shape", () => {
    it("answers an unknown API route with 404 in the one error shape", async () => {
      const res = await app.inject({ method: "GET", url: "/api/nope" });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({
        success: false,
        message: "No such endpoint: GET /api/nope",
        errorType: "not_found",
      });
    });

    it("answers broken JSON with 400, not 500", async () => {
      const res = await app.inject({
        method: "POST",
        url: "/api/health",
        headers: { "content-type": "application/json" },
        payload: "{not json",
      });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ success: false, errorType: "validation_error" });
    });

    it("answers a body over 1 MB with 413 in the one error shape", async () => {
      const res = await app.inject({
        method: "POST",
        url: "/api/health",
        headers: { "content-type": "application/json" },
        payload: JSON.stringify({ x: "a".repeat(1024 * 1024 + 10) }),
      });
      expect(res.statusCode).toBe(413);
      expect(res.json()).toEqual({
        success: false,
        message: "The request body is too large.",
        errorType: "validation_error",
      });
    });
  });

  describe("serving the web app", () => {
    it("serves the shell for client routes such as /login", async () => {
      const res = await app.inject({ method: "GET", url: "/login" });
      expect(res.statusCode).toBe(200);
      expect(res.headers["content-type"]).toContain("text/html");
      expect(res.body).toContain("<title>Turnout</title>");
      expect(res.headers["cache-control"]).toBe("no-cache");
    });

    it.each(["/admin/system", "/admin/user-alerts"])(
      "serves the shell for the admin console's tab address %s, so a reload keeps the tab",
      async (url) => {
        const res = await app.inject({ method: "GET", url });
        expect(res.statusCode).toBe(200);
        expect(res.body).toContain("<title>Turnout</title>");
      },
    );

    it("redirects /j/{digits} to /?job={id}", async () => {
      const res = await app.inject({ method: "GET", url: "/j/12345" });
      expect(res.statusCode).toBe(302);
      expect(res.headers.location).toBe("/?job=12345");
    });

    it("does not rewrite /j/ with non-digits", async () => {
      const res = await app.inject({ method: "GET", url: "/j/12a" });
      expect(res.statusCode).toBe(200);
      expect(res.headers.location).toBeUndefined();
    });

    it("caches hashed assets for a year and revalidates the service worker", async () => {
      const asset = await app.inject({ method: "GET", url: "/assets/app-abc123.js" });
      expect(asset.statusCode).toBe(200);
      expect(asset.headers["cache-control"]).toContain("immutable");
      const sw = await app.inject({ method: "GET", url: "/sw.js" });
      expect(sw.headers["cache-control"]).toBe("no-cache");
      writeFileSync(path.join(webDir, "sw.js.gz"), "gzip-bytes");
      const swGz = await app.inject({ method: "GET", url: "/sw.js", headers: { "accept-encoding": "gzip" } });
      expect(swGz.headers["content-encoding"]).toBe("gzip");
      expect(swGz.headers["cache-control"]).toBe("no-cache");
    });

    it("sends a precompressed asset to a client that accepts it", async () => {
      writeFileSync(path.join(webDir, "assets", "app-abc123.js.br"), "brotli-bytes");
      const plain = await app.inject({ method: "GET", url: "/assets/app-abc123.js" });
      expect(plain.headers["content-encoding"]).toBeUndefined();
      const br = await app.inject({
        method: "GET",
        url: "/assets/app-abc123.js",
        headers: { "accept-encoding": "br" },
      });
      expect(br.headers["content-encoding"]).toBe("br");
      expect(br.body).toBe("brotli-bytes");
    });

    it("answers a missing file with 404 rather than the shell", async () => {
      const res = await app.inject({ method: "GET", url: "/assets/missing.js" });
      expect(res.statusCode).toBe(404);
    });
  });
});
