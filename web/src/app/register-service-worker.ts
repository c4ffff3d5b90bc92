/** How often a running page asks the server whether /sw.js has changed (SPEC 7: every hour). */
export const UPDATE_CHECK_INTERVAL_MS = 60 * 60 * 1000;

/** The message the generated worker (vite-plugin-pwa, generateSW) answers with `skipWaiting()`. */
export const SKIP_WAITING_MESSAGE = { type: "SKIP_WAITING" } as const;

/** What the registration needs from the browser; tests pass fakes. */
export interface ServiceWorkerEnvironment {
  container: ServiceWorkerContainer | undefined;
  window: Pick<Window, "addEventListener" | "setInterval"> & { document: Pick<Document, "readyState"> };
  isOnline: () => boolean;
  reload: () => void;
}

function browserEnvironment(): ServiceWorkerEnvironment {
  return {
    container: "serviceWorker" in navigator ? navigator.serviceWorker : undefined,
    window,
    isOnline: () => navigator.onLine,
    reload: () => window.location.reload(),
  };
}

/**
 * Registers /sw.js once the page has loaded (SPEC 7): checks for a new worker every hour; a worker
 * that is waiting is told to take over; when an already controlling worker is replaced the page
 * reloads, once. The first install takes control without a reload (the worker claims the page).
 * Does nothing where service workers are unsupported.
 */
export function registerServiceWorker(env: ServiceWorkerEnvironment = browserEnvironment()): void {
  const { container } = env;
  if (!container) return;

  let controlled = Boolean(container.controller);
  let reloading = false;
  container.addEventListener("controllerchange", () => {
    // No controller before means the first install claimed the page: nothing stale to replace.
    if (controlled && !reloading) {
      reloading = true;
      env.reload();
    }
    controlled = true;
  });

  const register = async () => {
    let registration: ServiceWorkerRegistration;
    try {
      registration = await container.register("/sw.js", { scope: "/" });
    } catch {
      // Private modes and some embedded browsers refuse workers; the app works without one.
      return;
    }
    takeOverWhenWaiting(registration);
    env.window.setInterval(() => {
      if (env.isOnline()) registration.update().catch(() => undefined);
    }, UPDATE_CHECK_INTERVAL_MS);
  };

  if (env.window.document.readyState === "complete") void register();
  else env.window.addEventListener("load", () => void register(), { once: true });
}

/** Sends SKIP_WAITING to the waiting worker now, and to any later one as soon as it is installed. */
function takeOverWhenWaiting(registration: ServiceWorkerRegistration): void {
  registration.waiting?.postMessage(SKIP_WAITING_MESSAGE);
  registration.addEventListener("updatefound", () => {
    const incoming = registration.installing;
    incoming?.addEventListener("statechange", () => {
      if (incoming.state === "installed" && registration.waiting) {
        registration.waiting.postMessage(SKIP_WAITING_MESSAGE);
      }
    });
  });
}
