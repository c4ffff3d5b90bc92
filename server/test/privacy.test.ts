import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, type TestApp } from "./build-app.js";
import { createUser, waitForCode } from "./factories.js";

describe("personal data in logs", () => {
  let app: TestApp;
  const lines: string[] = [];

  beforeAll(async () => {
    app = await buildTestApp(
      { LOG_LEVEL: "info" },
      { logStream: { write: (line: string) => lines.push(line) } },
    );
  });
  afterAll(() => app.cleanup());

  it("never logs a full phone number or a code, even in URLs, while still logging the traffic", async () => {
    const phone = "+61455123987";
    const codes: string[] = [];
    await app.inject({
      method: "POST",
      url: "/api/auth/register",
      payload: {
        first_name: "Pat",
        last_name: "Lee",
        phone,
        user_agency: "FRV",
        postcode: "3000",
        town_name: "Melbourne",
        state_name: "VIC",
      },
    });
    codes.push(await waitForCode(app, phone));
    await app.inject({
      method: "POST",
      url: "/api/auth/activate",
      payload: { phone, activation_code: codes[0] },
    });
    await app.inject({ method: "POST", url: "/api/auth/request-otp", payload: { phone } });
    codes.push(await waitForCode(app, phone, 2));
    await app.inject({
      method: "POST",
      url: "/api/auth/verify-otp",
      headers: { "x-device-id": "d1" },
      payload: { phone, otp_code: codes[1] },
    });
    await app.inject({ method: "GET", url: `/api/nothing/${encodeURIComponent(phone)}/here` });

    const log = lines.join("");
    expect(log).toContain("sms written to outbox");
    expect(log).toContain("/api/nothing/");
    expect(log).not.toContain("455123987");
    expect(log).not.toContain("0455123987");
    // As a token of its own: the same six digits inside a timestamp would be a coincidence, not a leak.
    for (const code of codes) expect(log).not.toMatch(new RegExp(`(?<!\\d)${code}(?!\\d)`));
  });

  it("logs a failed query's SQL but not its parameters: no phone, name or town in the log", async () => {
    // A rule the application does not know about makes the registration's INSERT fail inside the
    // database, as a real constraint would: the error quotes the whole row and carries its parameters.
    await app.db.execute(
      sql.raw(
        `ALTER TABLE users ADD CONSTRAINT privacy_test_refuses CHECK (town_name IS DISTINCT FROM 'Wonthaggi') NOT VALID`,
      ),
    );
    try {
      const from = lines.length;
      const res = await app.inject({
        method: "POST",
        url: "/api/auth/register",
        payload: {
          first_name: "Perpetua",
          last_name: "Quintrell",
          phone: "0466 321 789",
          user_agency: "SES",
          postcode: "3995",
          town_name: "Wonthaggi",
          state_name: "VIC",
        },
      });
      expect(res.statusCode).toBe(500);

      const log = lines.slice(from).join("");
      const entry = lines
        .slice(from)
        .map((l) => JSON.parse(l))
        .find((l) => l.msg === "unhandled error");
      // The SQL stays readable; the values do not.
      expect(entry.err.query).toContain('insert into "users"');
      expect(entry.err.message).toContain('insert into "users"');
      expect(entry.err.params).toBe("[6 redacted]");
      expect(entry.err.cause).toMatchObject({
        code: "23514",
        constraint: "privacy_test_refuses",
        detail: "Failing row contains ([redacted]).",
      });
      for (const leak of ["466321789", "466 321 789", "Perpetua", "Quintrell", "Wonthaggi"]) {
        expect(log).not.toContain(leak);
      }
    } finally {
      await app.db.execute(sql.raw("ALTER TABLE users DROP CONSTRAINT privacy_test_refuses"));
    }
  });

  it("masks the key a unique violation quotes, through the cause it is wrapped in", async () => {
    const phone = "+61477654321";
    await createUser(app, { phone, firstName: "Ottoline" });
    const error = await createUser(app, { phone, firstName: "Ottoline" }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(Error);
    const from = lines.length;

    app.log.error({ err: error }, "could not create the user");

    const entry = JSON.parse(lines[from]!);
    expect(entry.err.params).toMatch(/^\[\d+ redacted\]$/);
    expect(entry.err.cause.code).toBe("23505");
    expect(entry.err.cause.detail).toBe("Key (phone)=([redacted]) already exists.");
    const log = lines.slice(from).join("");
    for (const leak of ["477654321", "Ottoline"]) expect(log).not.toContain(leak);
  });

  it("masks a value the database quotes back when it cannot read it", async () => {
    const error = await app.db.execute(sql`select ${"Perpetua +61466321789"}::integer`).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(Error);
    const from = lines.length;

    app.log.error({ err: error }, "query failed");

    const entry = JSON.parse(lines[from]!);
    expect(entry.err.cause.message).toBe('invalid input syntax for type integer: "[redacted]"');
    const log = lines.slice(from).join("");
    for (const leak of ["466321789", "Perpetua"]) expect(log).not.toContain(leak);
  });

  it("masks phones written any way and codes anywhere in log text, keeping addresses and dates", async () => {
    const from = lines.length;
    app.log.warn(
      { note: "caller 0411.000.009 or (04) 1100 0009 said code 482913", nested: { said: "+61-411-000-009" } },
      "code 482913 for 0411.000.009 from 203.0.113.7 on 2026-11-27",
    );
    const error = await app.db.execute(sql`select ${"99999999999"}::integer`).then(
      () => null,
      (e: unknown) => e,
    );
    app.log.error({ err: error }, "query failed");
    const log = lines.slice(from).join("");
    for (const leak of ["411.000.009", "1100 0009", "411-000-009", "482913", "99999999999"]) {
      expect(log).not.toContain(leak);
    }
    expect(log).toContain("203.0.113.7");
    expect(log).toContain("2026-11-27");
    expect(JSON.parse(lines[from]!).msg).toMatch(/^code •••••• for 04•+009 from/);
  });
});
