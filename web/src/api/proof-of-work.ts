import type { Challenge } from "altcha-lib";

/**
 * The device check (issue 27): while a phone or the service is under attack, the server answers an
 * anonymous sign-in call with 428 and an ALTCHA challenge. The client solves it here, in this browser
 * (PBKDF2 through WebCrypto, a second or two on a phone, nothing sent anywhere else), and sends the
 * call again. Screens only show "Checking your device..." while it runs.
 */

/** The header the solution travels in. */
export const PROOF_OF_WORK_HEADER = "X-Altcha";

type Listener = (checking: boolean) => void;
const listeners = new Set<Listener>();
let running = 0;

/** Subscribe to whether a device check is running; returns the unsubscribe function. */
export function onDeviceCheck(listener: Listener): () => void {
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
  };
}

function changed(delta: number): void {
  running += delta;
  for (const listener of listeners) listener(running > 0);
}

/** Whether a 428 body is the server asking for a device check. */
export function isProofOfWorkRequest(status: number, body: unknown): body is { challenge: Challenge } {
  const challenge = (body as { challenge?: Challenge } | undefined)?.challenge;
  return status === 428 && typeof challenge?.parameters?.nonce === "string";
}

/** Solves a challenge into the header value the server checks (base64 JSON `{ challenge, solution }`). */
export async function solveProofOfWork(challenge: Challenge, signal?: AbortSignal): Promise<string> {
  changed(1);
  try {
    // Loaded only when needed: most sign-ins never see a challenge.
    const [{ solveChallenge }, { deriveKey }] = await Promise.all([
      import("altcha-lib"),
      import("altcha-lib/algorithms/web/pbkdf2"),
    ]);
    const controller = new AbortController();
    signal?.addEventListener("abort", () => controller.abort(), { once: true });
    const solution = await solveChallenge({ challenge, deriveKey, controller });
    if (!solution) throw new Error("The device check did not finish.");
    return btoa(JSON.stringify({ challenge, solution }));
  } finally {
    changed(-1);
  }
}
