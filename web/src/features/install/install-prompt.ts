/**
 * Chrome, Edge and Samsung Internet fire `beforeinstallprompt` once the app is installable; the
 * event is kept so the banner's Install button can open the browser's own dialog later. Not in
 * TypeScript's DOM types, hence this description.
 */
export interface BeforeInstallPromptEvent extends Event {
  readonly platforms?: string[];
  readonly userChoice: Promise<{ outcome: "accepted" | "dismissed"; platform?: string }>;
  prompt(): Promise<unknown>;
}

let deferredPrompt: BeforeInstallPromptEvent | null = null;
let capturing = false;

function handleBeforeInstallPrompt(event: Event): void {
  // Keeps the browser's own mini-infobar away: the banner offers installing instead.
  event.preventDefault();
  deferredPrompt = event as BeforeInstallPromptEvent;
}

function handleAppInstalled(): void {
  deferredPrompt = null;
}

/**
 * Starts listening for the install prompt. Call it as the app starts: the browser fires the event
 * once, possibly before the banner is on screen. Safe to call again.
 */
export function startInstallPromptCapture(target: Window = window): void {
  if (capturing) return;
  capturing = true;
  target.addEventListener("beforeinstallprompt", handleBeforeInstallPrompt);
  target.addEventListener("appinstalled", handleAppInstalled);
}

/** The kept install prompt, or null when the browser has offered none (yet). */
export function getInstallPrompt(): BeforeInstallPromptEvent | null {
  return deferredPrompt;
}

/** Forgets the kept prompt: a prompt can be shown only once. */
export function consumeInstallPrompt(): void {
  deferredPrompt = null;
}
