import type { Page } from "playwright-core";
import type { RunningServer } from "./server.js";

/** The details a made-up account registers with; the phone comes back normalised (+61…). */
export type TestAccount = { phone: string; firstName: string; lastName: string };

/** How many SMS have gone to `to` so far (pass it to waitForSmsCode to wait for a newer one). */
export function smsCountTo(server: RunningServer, to: string): number {
  return server.outbox().filter((m) => m.to === to).length;
}

/** Waits for an SMS to `to` newer than the first `after` whose body has a 6-digit code, and returns the code. */
export async function waitForSmsCode(server: RunningServer, to: string, after = 0): Promise<string> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const code = server
      .outbox()
      .filter((m) => m.to === to)
      .slice(after)
      .at(-1)
      ?.body.match(/\b(\d{6})\b/)?.[1];
    if (code) return code;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no code reached ${to} within 10 s`);
}

async function postJson(server: RunningServer, path: string, body: unknown): Promise<Response> {
  const res = await fetch(`${server.url}/api${path}`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`POST ${path}: ${res.status} ${await res.text()}`);
  return res;
}

/**
 * Registers an account through the API and activates it with the code from the outbox; with the
 * default auto-activation it can sign in at once. `localPhone` like "0412 555 301".
 */
export async function registerActiveAccount(
  server: RunningServer,
  localPhone: string,
  { firstName = "Jordan", lastName = "Lee", agency = "CFA" } = {},
): Promise<TestAccount> {
  const phone = `+61${localPhone.replace(/\D/g, "").replace(/^0/, "")}`;
  await postJson(server, "/auth/register", {
    first_name: firstName,
    last_name: lastName,
    phone,
    user_agency: agency,
    postcode: "3550",
    town_name: "Bendigo",
    state_name: "VIC",
  });
  const code = await waitForSmsCode(server, phone);
  await postJson(server, "/auth/activate", { phone, activation_code: code });
  return { phone, firstName, lastName };
}

/** Signs in through the login screen with the code from the outbox; resolves once the app is signed in. */
export async function signInThroughUi(
  page: Page,
  server: RunningServer,
  account: TestAccount,
): Promise<void> {
  await page.goto(`${server.url}/`);
  await page.getByLabel("Phone number").fill(account.phone);
  const before = smsCountTo(server, account.phone);
  await page.getByRole("button", { name: "Send Code" }).click();
  await page.getByRole("heading", { name: "Enter Code" }).waitFor();
  const code = await waitForSmsCode(server, account.phone, before);
  await page.getByLabel("Verification code").fill(code);
  await page.getByRole("button", { name: "Verify Code" }).click();
  // Verifying stores the session and reloads; the user menu shows once the signed-in page is up.
  await page.getByRole("button", { name: /^User menu/ }).waitFor({ timeout: 20_000 });
}
