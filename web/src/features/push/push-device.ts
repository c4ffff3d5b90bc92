import type { PushSubscriptionInput } from "@turnout/domain";

/** What this browser can do about push, before any permission is asked. */
export type PushSupport = "supported" | "unsupported" | "needs-install";

/** Whether this browser can take push notifications; iPhones and iPads only from the installed app. */
export function pushSupport(): PushSupport {
  const hasApis =
    "serviceWorker" in navigator && typeof window.PushManager === "function" && "Notification" in window;
  if (hasApis) return "supported";
  const ios = /iPad|iPhone|iPod/.test(navigator.userAgent);
  const standalone = window.matchMedia?.("(display-mode: standalone)").matches ?? false;
  return ios && !standalone ? "needs-install" : "unsupported";
}

export function notificationPermission(): NotificationPermission {
  return "Notification" in window ? Notification.permission : "denied";
}

function keyBytes(base64url: string): Uint8Array<ArrayBuffer> {
  const base64 = base64url
    .replace(/-/g, "+")
    .replace(/_/g, "/")
    .padEnd(Math.ceil(base64url.length / 4) * 4, "=");
  const raw = atob(base64);
  const bytes = new Uint8Array(new ArrayBuffer(raw.length));
  for (let i = 0; i < raw.length; i++) bytes[i] = raw.charCodeAt(i);
  return bytes;
}

/** The subscription as the server takes it (PushSubscription.toJSON()). */
export function subscriptionInput(
  subscription: PushSubscription | PushSubscriptionJSON,
): PushSubscriptionInput {
  const json = "toJSON" in subscription ? subscription.toJSON() : subscription;
  return {
    endpoint: json.endpoint ?? "",
    keys: { p256dh: json.keys?.p256dh ?? "", auth: json.keys?.auth ?? "" },
    expiration_time: json.expirationTime ?? null,
  };
}

async function registration(): Promise<ServiceWorkerRegistration> {
  return navigator.serviceWorker.ready;
}

/** This device's current subscription, if it has one. */
export async function currentSubscription(): Promise<PushSubscription | null> {
  if (pushSupport() !== "supported") return null;
  return (await registration()).pushManager.getSubscription();
}

/**
 * Asks for permission (only ever from the member's own tap) and subscribes with the server's key. A
 * subscription made with another key (the server's keys changed) is replaced.
 */
export async function subscribeDevice(publicKey: string): Promise<PushSubscription> {
  const permission = await Notification.requestPermission();
  if (permission !== "granted") throw new PushPermissionError(permission);
  const reg = await registration();
  const key = keyBytes(publicKey);
  const existing = await reg.pushManager.getSubscription();
  if (existing) {
    const existingKey = existing.options.applicationServerKey;
    const same = existingKey && new Uint8Array(existingKey).every((b, i) => b === key[i]);
    if (same) return existing;
    await existing.unsubscribe();
  }
  // A browser whose push service is out of reach can leave subscribe() unanswered: give up, and say so.
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new PushServiceError()), SUBSCRIBE_TIMEOUT_MS);
  });
  try {
    return await Promise.race([
      reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: key }),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** How long subscribing may take before the member is told it did not work. */
export const SUBSCRIBE_TIMEOUT_MS = 10_000;

/** The browser's push service refused or did not answer. */
export class PushServiceError extends Error {
  constructor() {
    super(
      "This browser could not set up push notifications (its push service did not answer). Try again later, or use the installed app.",
    );
  }
}

export async function unsubscribeDevice(): Promise<void> {
  const existing = await currentSubscription();
  await existing?.unsubscribe();
}

export class PushPermissionError extends Error {
  constructor(readonly permission: NotificationPermission) {
    super(
      permission === "denied"
        ? "Notifications are blocked for this site. Allow them in your browser's site settings, then try again."
        : "Notifications were not allowed. Turn push on again and choose Allow.",
    );
  }
}
