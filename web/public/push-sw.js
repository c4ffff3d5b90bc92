// Web Push in the app's service worker (issue 15), pulled into the generated /sw.js with importScripts
// (vite.config.ts), so every version of the worker, and one that replaced another, handles pushes.
// The server builds the notification (domain/src/push.ts: title, body, a tag per job, the job's link);
// this file only shows it and opens the job when it is tapped.

const FALLBACK = { title: "Turnout", body: "New alert", url: "/" };

function readPush(event) {
  if (!event.data) return FALLBACK;
  try {
    const data = event.data.json();
    if (data && typeof data.title === "string") return data;
  } catch {
    // not JSON: show the text as it came
  }
  return { ...FALLBACK, body: event.data.text() || FALLBACK.body };
}

self.addEventListener("push", (event) => {
  const data = readPush(event);
  const emergency = data.type === "emergency";
  const sentAt = Date.parse(data.sent_at);
  event.waitUntil(
    self.registration.showNotification(data.title, {
      body: typeof data.body === "string" ? data.body : "",
      // A second page of the same job replaces the first instead of stacking, and rings again.
      tag: typeof data.tag === "string" && data.tag ? data.tag : undefined,
      renotify: typeof data.tag === "string" && data.tag !== "",
      requireInteraction: emergency,
      icon: "/icons/icon-192.png",
      badge: "/icons/icon-96.png",
      timestamp: Number.isNaN(sentAt) ? Date.now() : sentAt,
      data: { url: typeof data.url === "string" ? data.url : "/" },
    }),
  );
});

/** The app's own address for a notification's link; anything off-site opens the app's home instead. */
function targetOf(notification) {
  const url = new URL(notification.data?.url ?? "/", self.location.origin);
  return url.origin === self.location.origin ? url : new URL("/", self.location.origin);
}

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const target = targetOf(event.notification);
  event.waitUntil(
    (async () => {
      const windows = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
      const open = windows.find((w) => new URL(w.url).origin === target.origin);
      if (open) {
        // The open app shows the job in place (no reload), then comes to the front.
        open.postMessage({ type: "turnout:open", url: target.pathname + target.search });
        await open.focus().catch(() => undefined);
        return;
      }
      await self.clients.openWindow(target.href);
    })(),
  );
});

// The push service replaced or expired the subscription: subscribe again with the same key and tell open
// app windows, which register the new one with the server (the worker holds no sign-in of its own).
self.addEventListener("pushsubscriptionchange", (event) => {
  event.waitUntil(
    (async () => {
      const key = event.oldSubscription?.options?.applicationServerKey;
      if (!key) return;
      const subscription = await self.registration.pushManager.subscribe({
        userVisibleOnly: true,
        applicationServerKey: key,
      });
      const windows = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
      for (const w of windows)
        w.postMessage({ type: "turnout:push-subscription", subscription: subscription.toJSON() });
    })(),
  );
});
