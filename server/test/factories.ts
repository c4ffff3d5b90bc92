import { readFileSync } from "node:fs";
import { eq } from "drizzle-orm";
import { agencies, userAgencies, users } from "../src/db/schema.js";
import type { TestApp } from "./build-app.js";
import { sendWithProofOfWork } from "./proof-of-work.js";

let phoneCounter = 0;

/** A fresh, plausible Australian mobile number for each call. */
export function uniquePhone(): string {
  phoneCounter += 1;
  // +6140 then 7 digits: a range libphonenumber knows as Australian mobiles (issue 27 checks it).
  return `+6140${String((process.pid * 7919 + phoneCounter * 104_729) % 10_000_000).padStart(7, "0")}`;
}

/** Inserts an active, verified user assigned to the given agencies (codes). */
export async function createUser(
  app: Pick<TestApp, "db">,
  options: { phone?: string; agencyCodes?: string[]; isAdmin?: boolean; firstName?: string } = {},
) {
  const [user] = await app.db
    .insert(users)
    .values({
      phone: options.phone ?? uniquePhone(),
      firstName: options.firstName ?? "Sam",
      lastName: "Tester",
      isAdmin: options.isAdmin ?? false,
      isVerified: true,
      isActive: true,
    })
    .returning();
  for (const code of options.agencyCodes ?? ["CFA"]) {
    const [agency] = await app.db.select().from(agencies).where(eq(agencies.code, code));
    await app.db.insert(userAgencies).values({ userId: user!.id, agencyId: agency!.id });
  }
  return user!;
}

type OutboxLine = { to: string; body: string; at: string };

/** Every SMS the app has written to its outbox so far. */
export function readOutbox(app: TestApp): OutboxLine[] {
  try {
    return readFileSync(app.config.smsOutboxFile, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as OutboxLine);
  } catch {
    return [];
  }
}

/** Waits for the next SMS to `to` whose body has a 6-digit code, and returns the code. */
export async function waitForCode(app: TestApp, to: string, after = 0): Promise<string> {
  const deadline = Date.now() + 5_000;
  while (Date.now() < deadline) {
    const messages = readOutbox(app).filter((m) => m.to === to);
    const code = messages
      .slice(after)
      .at(-1)
      ?.body.match(/\b(\d{6})\b/)?.[1];
    if (code) return code;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`no code reached ${to} within 5 s`);
}

/** How many SMS have gone to `to` so far (pass it to waitForCode to wait for a newer one). */
export function smsCount(app: TestApp, to: string): number {
  return readOutbox(app).filter((m) => m.to === to).length;
}

/** Signs a user in through the real endpoints and returns the token. */
export async function signIn(app: TestApp, phone: string, deviceId = "device-a"): Promise<string> {
  return (await signInDevice(app, phone, deviceId)).token;
}

/**
 * Signs a user in on a device, as the app does: with the device's credential when it has one (issue
 * 27), from `remoteAddress` when given. Returns the session token and the device's new credential.
 */
export async function signInDevice(
  app: TestApp,
  phone: string,
  deviceId: string,
  options: { credential?: string; remoteAddress?: string } = {},
): Promise<{ token: string; credential: string }> {
  const headers: Record<string, string> = options.credential
    ? { "x-device-credential": options.credential }
    : {};
  const from = options.remoteAddress ? { remoteAddress: options.remoteAddress } : {};
  const before = smsCount(app, phone);
  // Like the app, it solves a proof of work when the server asks for one (a phone under attack).
  const { res: req } = await sendWithProofOfWork((pow) =>
    app.inject({
      method: "POST",
      url: "/api/auth/request-otp",
      headers: { ...headers, ...pow },
      payload: { phone },
      ...from,
    }),
  );
  if (req.statusCode !== 200) throw new Error(`request-otp: ${req.statusCode} ${req.body}`);
  const code = await waitForCode(app, phone, before);
  const { res } = await sendWithProofOfWork((pow) =>
    app.inject({
      method: "POST",
      url: "/api/auth/verify-otp",
      headers: { ...headers, ...pow, "x-device-id": deviceId },
      payload: { phone, otp_code: code },
      ...from,
    }),
  );
  if (res.statusCode !== 200) throw new Error(`verify-otp: ${res.statusCode} ${res.body}`);
  const data = res.json().data as { token: string; device_credential: string };
  return { token: data.token, credential: data.device_credential };
}
