/**
 * Server events on the live channel that screens other than the alert feed listen to (the admin
 * badges). The page keeps one channel (`openLiveChannel`); it relays these here, so a screen can
 * listen without owning the socket.
 */
export const RELAYED_LIVE_EVENTS = [
  "user-alerts:pending",
  "feedback:new-message",
  "feedback:new-conversation",
  "feedback:media-converted",
  "feedback:status-changed",
  // `{ job_alert_id, responding, not_available }`: a job's answer counts changed (issue 15).
  "alert:responses",
  // `{ receiver_ids }`: receivers' states changed, or a heartbeat ended a silence (issue 33; admins).
  "receivers:changed",
  // The server has put the page in the admins' room (on entering the console, on every connect there).
  "joined-admin",
] as const;
/**
 * Relayed events: those above, each valid `new-alert` the page's feed received (the admin feed follows
 * it), `rooms-joined` `{ recovered }` each time the server confirms the page is in the member's rooms
 * (on opening, after a reconnect, after a change of view: what was sent to them before may have been
 * missed), and `burst-settled` when a burst the server sent as `alerts:refresh` has settled (the rest of
 * it is read from the first page).
 */
export type RelayedLiveEvent =
  | (typeof RELAYED_LIVE_EVENTS)[number]
  | "new-alert"
  | "rooms-joined"
  | "burst-settled";

type Listener = (payload: unknown) => void;

const listeners = new Map<RelayedLiveEvent, Set<Listener>>();

/** Listen to one relayed event; returns the unsubscribe function. */
export function subscribeLiveEvent(event: RelayedLiveEvent, listener: Listener): () => void {
  let set = listeners.get(event);
  if (!set) {
    set = new Set();
    listeners.set(event, set);
  }
  set.add(listener);
  return () => {
    set.delete(listener);
  };
}

/** Listen to several relayed live events with one handler; returns the unsubscribe function. */
export function subscribeLiveEvents(
  events: readonly RelayedLiveEvent[],
  listener: (event: RelayedLiveEvent, payload: unknown) => void,
): () => void {
  const stops = events.map((event) => subscribeLiveEvent(event, (payload) => listener(event, payload)));
  return () => {
    for (const stop of stops) stop();
  };
}

/** Hand an event the server sent to every listener; used by the live channel (and its test fake). */
export function publishLiveEvent(event: RelayedLiveEvent, payload: unknown): void {
  for (const listener of listeners.get(event) ?? []) listener(payload);
}
