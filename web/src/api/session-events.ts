/**
 * How the HTTP client tells the app that the session ended (401) or access was refused (403).
 * The client knows nothing of dialogs; the app subscribes once and shows them.
 */
export type SessionNotice =
  | { kind: "expired"; message: string }
  | { kind: "kicked"; message: string }
  | { kind: "forbidden"; message: string };

type Listener = (notice: SessionNotice) => void;

const listeners = new Set<Listener>();

/** Subscribe to session notices; returns the unsubscribe function. */
export function onSessionNotice(listener: Listener): () => void {
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
  };
}

/** Tell every subscriber; used by the client and by the app's own session checks. */
export function emitSessionNotice(notice: SessionNotice): void {
  for (const listener of listeners) listener(notice);
}
