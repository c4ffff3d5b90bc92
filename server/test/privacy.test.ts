import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, type TestApp } from "./build-app.js";
import { waitForCode } from "./factories.js";

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
});
