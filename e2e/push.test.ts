import type { CDPSession } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type PushStandIn, startPushStandIn } from "../server/src/testing/push-stand-in.js";
import { registerActiveAccount } from "./support/accounts.js";
import {
  agencyIds,
  apiJson,
  ingest,
  mapCapcode,
  openSignedIn,
  type SignedInSession,
  signInByApi,
} from "./support/alerts.js";
import { type BrowserSession, openBrowser } from "./support/browser.js";
import { chromiumPath } from "./support/chromium.js";
import { type RunningServer, startServer } from "./support/server.js";

const ADMIN_PHONE = "+61412555960";
const INGEST_KEY = "e2e-ingest-key-for-web-push";

type Payload = { title: string; body: string; tag: string; url: string; alert_id: number };

/** The app's service worker registration id, as the DevTools protocol names it. */
async function registrationId(cdp: CDPSession, origin: string): Promise<string> {
  const found = new Promise<string>((resolve) => {
    cdp.on("ServiceWorker.workerRegistrationUpdated", ({ registrations }) => {
      const ours = registrations.find((r) => r.scopeURL === `${origin}/` && !r.isDeleted);
      if (ours) resolve(ours.registrationId);
    });
  });
  await cdp.send("ServiceWorker.enable");
  return found;
}

describe.skipIf(!chromiumPath)("Web Push to the installed app in Chromium", () => {
  let server: RunningServer;
  let standIn: PushStandIn;
  let member: SignedInSession;
  let browser: BrowserSession;

  beforeAll(async () => {
    standIn = await startPushStandIn();
    server = await startServer({
      ADMIN_PHONES: ADMIN_PHONE,
      INGEST_API_KEY: INGEST_KEY,
      PUSH_EXTRA_ENDPOINT_HOSTS: standIn.host,
    });
    const admin = await signInByApi(server, ADMIN_PHONE, "e2e-push-admin");
    await mapCapcode(server, admin.token, "0555001", (await agencyIds(server)).CFA!, "Bendigo");
    const account = await registerActiveAccount(server, "0412 555 961", { firstName: "Pat", agency: "CFA" });
    member = await signInByApi(server, account.phone, "e2e-push-member");
    browser = await openBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await standIn?.close();
    await server?.stop();
  });

  it("shows a pushed emergency page as a notification whose tap opens the job", async () => {
    const { page, context } = browser;
    // The member's device subscribes at the push service (the stand-in stands for it).
    const subscription = standIn.createSubscription();
    await apiJson(server, "PUT", "/push/subscription", { token: member.token, body: subscription });

    await context.grantPermissions(["notifications"], { origin: server.url });
    await openSignedIn(page, server, member);
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null, undefined, {
      timeout: 20_000,
    });

    const [id] = await ingest(server, INGEST_KEY, [
      { capcode: "0555001", message: "@@ALERT F261555001 STRUC1 HOUSE FIRE 12 PUSH ST BENDIGO" },
    ]);
    const [push] = await standIn.waitFor((got) => got.length === 1, 10_000);
    const payload = push!.payload as Payload;
    expect(payload).toMatchObject({
      title: "Emergency \u00b7 CFA \u00b7 Bendigo",
      tag: "job-F261555001",
      url: `/j/${id}`,
    });

    // What the push service delivered, handed to the app's own service worker as a push event.
    const cdp = await context.newCDPSession(page);
    const origin = new URL(server.url).origin;
    const registration = await registrationId(cdp, origin);
    const deliver = () =>
      cdp.send("ServiceWorker.deliverPushMessage", {
        origin,
        registrationId: registration,
        data: JSON.stringify(payload),
      });
    const shown = async () =>
      page.evaluate(async () =>
        (await (await navigator.serviceWorker.ready).getNotifications()).map((n) => ({
          title: n.title,
          body: n.body,
          tag: n.tag,
          url: (n.data as { url: string }).url,
        })),
      );
    await deliver();
    // Headless Chromium under load (CI, about 1 run in 8 with both cores busy) was seen to lose the
    // first notification after the worker's showNotification had resolved: not listed, even by the
    // worker itself, right after. Delivered once more then: the same tag replaces, so one it stays.
    const first = await expect
      .poll(shown, { timeout: 5_000 })
      .toHaveLength(1)
      .then(() => true)
      .catch(() => false);
    if (!first) await deliver();
    await expect.poll(shown, { timeout: 10_000 }).toHaveLength(1);
    expect(await shown()).toEqual([
      {
        title: "Emergency \u00b7 CFA \u00b7 Bendigo",
        body: "ALERT F261555001 STRUC1 HOUSE FIRE 12 PUSH ST BENDIGO",
        tag: "job-F261555001",
        url: `/j/${id}`,
      },
    ]);

    // A tap on it: the notificationclick handler of the app's worker opens the job in the open app.
    const worker = context.serviceWorkers().find((w) => w.url().startsWith(origin));
    expect(worker).toBeDefined();
    await worker!.evaluate(async () => {
      type WorkerScope = {
        registration: ServiceWorkerRegistration;
        dispatchEvent(event: Event): boolean;
        NotificationEvent: new (type: string, init: { notification: Notification }) => Event;
      };
      const sw = self as unknown as WorkerScope;
      const [notification] = await sw.registration.getNotifications();
      sw.dispatchEvent(new sw.NotificationEvent("notificationclick", { notification: notification! }));
    });
    const dialog = page.getByRole("dialog", { name: `Job #${id}` });
    await dialog
      .getByText("ALERT F261555001 STRUC1 HOUSE FIRE 12 PUSH ST BENDIGO")
      .waitFor({ timeout: 10_000 });
    expect(new URL(page.url()).search).toBe(`?job=${id}`);
    await expect.poll(shown).toEqual([]);
    expect(browser.errors).toEqual([]);
  });

  it("explains push in the user menu, and says so clearly when this browser has no push service", async () => {
    const { page } = browser;
    await page.goto(`${server.url}/`);
    await page.getByRole("button", { name: /^User menu/ }).click();
    await page.getByRole("menuitem", { name: "Push notifications" }).click();
    const dialog = page.getByRole("dialog", { name: "Push notifications" });
    await dialog.getByText(/even when Turnout is closed/).waitFor();
    await dialog.getByRole("switch", { name: "Every emergency alert from Country Fire Authority" }).waitFor();
    const device = dialog.getByRole("switch", { name: /Push notifications on this device/ });
    // The subscription registered through the API above belongs to this device's session.
    expect(await device.isChecked()).toBe(true);
    await device.click(); // off: the server forgets the device
    await expect.poll(() => device.isChecked()).toBe(false);
    const prefs = await apiJson<{ device_subscribed: boolean }>(server, "GET", "/push/preferences", {
      token: member.token,
    });
    expect(prefs.device_subscribed).toBe(false);
    // On again: headless Debian Chromium has no push service (no FCM keys), so subscribing fails
    // and the dialog must say so rather than pretend.
    await device.click();
    const outcome = async () =>
      (await device.isChecked())
        ? "subscribed"
        : (await dialog.getByText(/could not set up push notifications/).count()) > 0
          ? "error"
          : "waiting";
    await expect.poll(outcome, { timeout: 30_000 }).not.toBe("waiting");
    expect(["error", "subscribed"]).toContain(await outcome());
    expect(browser.errors).toEqual([]);
  });
});
