import type { BrowserContext, Page } from "playwright-core";
import { smsCountTo, waitForSmsCode } from "./accounts.js";
import type { RunningServer } from "./server.js";

/** Calls the real API as a caller with (or without) a bearer token; throws on a non-2xx answer. */
export async function apiJson<T = unknown>(
  server: RunningServer,
  method: string,
  path: string,
  { token, body, headers = {} }: { token?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<T> {
  const res = await fetch(`${server.url}/api${path}`, {
    method,
    headers: {
      ...(body === undefined ? {} : { "Content-Type": "application/json" }),
      ...(token ? { Authorization: `Bearer ${token}` } : {}),
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return (text ? JSON.parse(text) : undefined) as T;
}

/** What a sign-in stores in the browser (SPEC 3). */
export type SignedInSession = {
  token: string;
  user: { id: number; first_name: string; last_name: string; phone: string; is_admin: boolean };
  agency: { id: number; name: string; code: string } | null;
};

/** Signs an existing, active account in through the API (request a code, read it from the outbox, verify). */
export async function signInByApi(
  server: RunningServer,
  phone: string,
  deviceId = "e2e-api",
): Promise<SignedInSession> {
  const before = smsCountTo(server, phone);
  // As the app does: a device that signed in before presents its credential (issue 27), so repeated
  // sign-ins of one account are served by its own allowance rather than the strangers' one.
  const known = deviceCredentials.get(`${server.url} ${phone} ${deviceId}`);
  const credential: Record<string, string> = known ? { "X-Device-Credential": known } : {};
  await apiJson(server, "POST", "/auth/request-otp", { body: { phone }, headers: credential });
  const code = await waitForSmsCode(server, phone, before);
  const reply = await apiJson<{ data: SignedInSession & { device_credential?: string } }>(
    server,
    "POST",
    "/auth/verify-otp",
    { body: { phone, otp_code: code }, headers: { ...credential, "X-Device-ID": deviceId } },
  );
  if (reply.data.device_credential) {
    deviceCredentials.set(`${server.url} ${phone} ${deviceId}`, reply.data.device_credential);
  }
  return reply.data;
}

/** The device credentials signInByApi was given, by server, phone and device. */
const deviceCredentials = new Map<string, string>();

/** The sign-up agencies' ids by code (FRV, CFA, SES, Other). */
export async function agencyIds(server: RunningServer): Promise<Record<string, number>> {
  const reply = await apiJson<{ data: Array<{ id: number; code: string }> }>(server, "GET", "/auth/agencies");
  return Object.fromEntries(reply.data.map((a) => [a.code, a.id]));
}

/** Maps a pager capcode to an agency (and an area) as an admin. */
export async function mapCapcode(
  server: RunningServer,
  adminToken: string,
  capcode: string,
  agencyId: number,
  area?: string,
): Promise<void> {
  await apiJson(server, "POST", "/admin/capcodes", {
    token: adminToken,
    body: { capcode, agency_id: agencyId, ...(area ? { area } : {}) },
  });
}

/** Posts pager messages to the ingest endpoint; returns the created alert ids in order. */
export async function ingest(
  server: RunningServer,
  apiKey: string,
  messages: Array<{ capcode: string; message: string; timestamp?: string }>,
): Promise<number[]> {
  const reply = await apiJson<{ data: Array<{ id: number; status: string }> }>(
    server,
    "POST",
    "/ingest/messages",
    {
      headers: { "X-API-Key": apiKey },
      body: { messages },
    },
  );
  return reply.data.map((r) => r.id);
}

/**
 * Puts a signed-in session into the browser's storage the way the login screen leaves it, then
 * opens `path`; resolves once the dashboard's user menu (with its live state) is on the page.
 */
export async function openSignedIn(
  page: Page,
  server: RunningServer,
  session: SignedInSession,
  path = "/",
): Promise<void> {
  await page.goto(`${server.url}/?debug=keyboard`);
  await page.evaluate((s) => {
    // Typed without the DOM library: bench/ (Node types only) imports these helpers too.
    const storage = (globalThis as unknown as { localStorage: { setItem: (k: string, v: string) => void } })
      .localStorage;
    storage.setItem("turnout_token", s.token);
    storage.setItem("turnout_user", JSON.stringify(s.user));
    storage.setItem("turnout_agency", JSON.stringify(s.agency));
  }, session);
  await page.goto(`${server.url}${path}`);
  // Located by attribute, not role: a popup opened by `path` hides the rest of the page from the tree.
  await page.locator("[data-connection]").waitFor({ timeout: 20_000 });
}

/** Lets the page read and write the clipboard (the share fallback copies there). */
export async function allowClipboard(context: BrowserContext, server: RunningServer): Promise<void> {
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: server.url });
}
