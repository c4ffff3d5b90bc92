import { render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { AppProviders, createQueryClient } from "../../app/providers";
import { mockApi } from "../../testing/mock-api";
import { storeSession } from "../../testing/session-fixtures";
import { PushDialog } from "./push-dialog";

vi.setConfig({ testTimeout: 20_000 });

const PUBLIC_KEY = "BKxM3t9fjUvOqg2hAYg8wqs0R2m3vnxf6v3q8S2wS9nW1VbQm3yq7zZ3wL0y6q9m1S8tX6nZ2eKc4H8pJ7sV5fA";
const SUBSCRIPTION = {
  endpoint: "https://fcm.googleapis.com/fcm/send/device-1",
  expirationTime: null,
  keys: { p256dh: `B${"a".repeat(86)}`, auth: "c".repeat(22) },
};

class FakePushManager {}

/** A browser with push: a permission prompt answered `answer`, and a push manager keeping one subscription. */
function fakePushBrowser(answer: NotificationPermission = "granted", subscribeFails = false) {
  let permission: NotificationPermission = "default";
  let current: PushSubscription | null = null;
  const subscription = {
    ...SUBSCRIPTION,
    options: { applicationServerKey: null },
    toJSON: () => SUBSCRIPTION,
    unsubscribe: vi.fn(async () => {
      current = null;
      return true;
    }),
  } as unknown as PushSubscription;
  const pushManager = {
    getSubscription: vi.fn(async () => current),
    subscribe: vi.fn(async () => {
      if (subscribeFails)
        throw new DOMException("Registration failed - push service not available", "AbortError");
      current = subscription;
      return subscription;
    }),
  };
  const requestPermission = vi.fn(async () => {
    permission = answer;
    return answer;
  });
  vi.stubGlobal("PushManager", FakePushManager);
  const FakeNotification = Object.defineProperties(function fakeNotification() {}, {
    requestPermission: { value: requestPermission },
    permission: { get: () => permission },
  });
  vi.stubGlobal("Notification", FakeNotification);
  Object.defineProperty(navigator, "serviceWorker", {
    configurable: true,
    value: { ready: Promise.resolve({ pushManager }), addEventListener() {}, removeEventListener() {} },
  });
  return { pushManager, requestPermission, subscription };
}

function pushServer(options: { subscribed?: boolean; cfaUnits?: boolean } = {}) {
  let subscribed = options.subscribed ?? false;
  const cfaUnits = options.cfaUnits ? [{ id: 10, name: "Kangaroo Flat" }] : [];
  let modes: Record<number, string> = { 2: cfaUnits.length ? "units" : "emergency", 3: "emergency" };
  const prefs = () => ({
    success: true,
    device_subscribed: subscribed,
    agencies: [
      { agency_id: 2, agency_name: "Country Fire Authority", mode: modes[2], units: cfaUnits },
      { agency_id: 3, agency_name: "State Emergency Service", mode: modes[3], units: [] },
    ],
  });
  return mockApi({
    "GET /push/config": { body: { success: true, enabled: true, public_key: PUBLIC_KEY } },
    "GET /push/preferences": () => ({ body: prefs() }),
    "PUT /push/preferences": (request) => {
      const { agencies } = request.body as { agencies: { agency_id: number; mode: string }[] };
      modes = { ...modes, ...Object.fromEntries(agencies.map((a) => [a.agency_id, a.mode])) };
      return { body: prefs() };
    },
    "PUT /push/subscription": () => {
      subscribed = true;
      return { body: { success: true, device_subscribed: true } };
    },
    "DELETE /push/subscription": () => {
      subscribed = false;
      return { body: { success: true, device_subscribed: false } };
    },
    "POST /push/test": { status: 202, body: { success: true, queued: true } },
  });
}

function renderDialog() {
  storeSession();
  const user = userEvent.setup({ delay: null });
  render(
    <AppProviders queryClient={createQueryClient()}>
      <PushDialog open onClose={() => undefined} />
    </AppProviders>,
  );
  return user;
}

const DEVICE = { name: /Push notifications on this device/ };
const deviceSwitch = () => screen.findByRole("switch", DEVICE);

afterEach(() => {
  vi.unstubAllGlobals();
  Reflect.deleteProperty(navigator, "serviceWorker");
});

describe("Push notifications dialog", () => {
  it("explains push and asks for permission only when the member turns it on", async () => {
    const browser = fakePushBrowser("granted");
    const server = pushServer();
    const user = renderDialog();
    expect(screen.getByText(/even when Turnout is closed/)).toBeInTheDocument();
    const toggle = await deviceSwitch();
    expect(toggle).not.toBeChecked();
    expect(browser.requestPermission).not.toHaveBeenCalled();
    expect(screen.getByRole("button", { name: "Send a test notification" })).toBeDisabled();

    await user.click(toggle);
    await waitFor(() => expect(server.callsTo("PUT /push/subscription")).toHaveLength(1));
    expect(browser.requestPermission).toHaveBeenCalledTimes(1);
    expect(browser.pushManager.subscribe).toHaveBeenCalledWith(
      expect.objectContaining({ userVisibleOnly: true, applicationServerKey: expect.any(Uint8Array) }),
    );
    expect(server.callsTo("PUT /push/subscription")[0]!.body).toEqual({
      endpoint: SUBSCRIPTION.endpoint,
      keys: SUBSCRIPTION.keys,
      expiration_time: null,
    });
    await waitFor(() => expect(screen.getByRole("switch", DEVICE)).toBeChecked());

    await user.click(screen.getByRole("button", { name: "Send a test notification" }));
    expect(await screen.findByRole("status")).toHaveTextContent("Test sent");
    expect(server.callsTo("POST /push/test")).toHaveLength(1);
  });

  it("turns push off on the server and in the browser", async () => {
    const browser = fakePushBrowser("granted");
    await browser.pushManager.subscribe();
    await Notification.requestPermission();
    const server = pushServer({ subscribed: true });
    const user = renderDialog();
    const toggle = await deviceSwitch();
    await waitFor(() => expect(toggle).toBeChecked());
    await user.click(toggle);
    await waitFor(() => expect(server.callsTo("DELETE /push/subscription")).toHaveLength(1));
    expect(browser.subscription.unsubscribe).toHaveBeenCalled();
    await waitFor(() => expect(screen.getByRole("switch", DEVICE)).not.toBeChecked());
  });

  it("says how to unblock notifications when the member refuses permission", async () => {
    fakePushBrowser("denied");
    const server = pushServer();
    const user = renderDialog();
    await user.click(await deviceSwitch());
    expect(await screen.findAllByText(/blocked for this site/)).not.toHaveLength(0);
    expect(server.callsTo("PUT /push/subscription")).toHaveLength(0);
  });

  it("shows a clear error when the browser has no push service", async () => {
    fakePushBrowser("granted", true);
    const server = pushServer();
    const user = renderDialog();
    await user.click(await deviceSwitch());
    expect(await screen.findByText(/could not set up push notifications/)).toBeInTheDocument();
    expect(server.callsTo("PUT /push/subscription")).toHaveLength(0);
  });

  it("keeps the choice per agency", async () => {
    fakePushBrowser("granted");
    const server = pushServer();
    const user = renderDialog();
    const ses = await screen.findByRole("switch", {
      name: "Every emergency alert from State Emergency Service",
    });
    expect(ses).toBeChecked();
    await user.click(ses);
    await waitFor(() =>
      expect(server.callsTo("PUT /push/preferences")[0]?.body).toEqual({
        agencies: [{ agency_id: 3, mode: "none" }],
      }),
    );
    await waitFor(() => expect(ses).not.toBeChecked());
    expect(
      screen.getByRole("switch", { name: "Every emergency alert from Country Fire Authority" }),
    ).toBeChecked();
  });

  it("offers a unit member their units' emergencies, the whole agency's, or none (issue 26)", async () => {
    fakePushBrowser("granted");
    const server = pushServer({ cfaUnits: true });
    const user = renderDialog();
    const group = await screen.findByRole("radiogroup");
    expect(
      within(group).getByRole("radio", { name: "Emergencies for my units (Kangaroo Flat)" }),
    ).toBeChecked();
    await user.click(
      within(group).getByRole("radio", { name: "Every emergency alert from Country Fire Authority" }),
    );
    await waitFor(() =>
      expect(server.callsTo("PUT /push/preferences")[0]?.body).toEqual({
        agencies: [{ agency_id: 2, mode: "emergency" }],
      }),
    );
    await waitFor(() =>
      expect(within(group).getByRole("radio", { name: /Every emergency alert from Country/ })).toBeChecked(),
    );
  });

  it("tells iPhone users to install the app first, and other browsers without push that SMS still works", async () => {
    pushServer();
    vi.spyOn(navigator, "userAgent", "get").mockReturnValue(
      "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148 Safari/604.1",
    );
    const { unmount } = render(
      <AppProviders queryClient={createQueryClient()}>
        <PushDialog open onClose={() => undefined} />
      </AppProviders>,
    );
    expect(screen.getByText(/Add to Home Screen/)).toBeInTheDocument();
    unmount();
    vi.restoreAllMocks();
    renderDialog();
    expect(screen.getByText(/cannot show push notifications/)).toBeInTheDocument();
  });
});
