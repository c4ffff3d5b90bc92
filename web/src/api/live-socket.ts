import {
  SOCKET_RECONNECT_ATTEMPTS,
  SOCKET_RECONNECT_DELAY_MAX_MS,
  SOCKET_RECONNECT_DELAY_MS,
  SOCKET_TIMEOUT_MS,
} from "@turnout/domain";
import { io } from "socket.io-client";
import { config } from "../config";
import { publishLiveEvent, RELAYED_LIVE_EVENTS } from "./live-events";
import { storage } from "./storage";

/** The live connection states of SPEC 4. */
export type LiveConnectionState = "connecting" | "connected" | "reconnecting" | "disconnected" | "failed";

/** Events the page may send (SPEC 7 'Live connection'). */
export type LiveClientEvent =
  | "join-user-agencies"
  | "leave-user-agencies"
  | "join-admin"
  | "leave-admin"
  | "join-agency"
  | "leave-agency"
  | "test-event";

/** What the live channel reports; payloads are passed on as the server sent them. */
export interface LiveChannelHandlers {
  /** `recovered` is true on a connect that follows an earlier one (a reconnect). */
  onState: (state: LiveConnectionState, detail: { recovered: boolean }) => void;
  onNewAlert: (payload: unknown) => void;
  /**
   * `alerts:refresh` `{ count, newest }`: a burst of `count` alerts the server did not send one by one
   * (issue 14); `newest` is the newest of them, the rest are read from the feed's first page.
   */
  onAlertsRefresh?: (payload: unknown) => void;
  onJoinedUserAgencies?: (payload: unknown) => void;
  onError?: (payload: unknown) => void;
  onSessionEnded?: (payload: unknown) => void;
  /** The server refused the handshake (its middleware said no): no automatic retry follows. */
  onRejected?: (reason: string | undefined) => void;
}

/** One open live channel: send events, retry by hand after a failure, close it for good. */
export interface LiveChannel {
  emit: (event: LiveClientEvent, payload?: unknown) => void;
  reconnect: () => void;
  close: () => void;
}

/**
 * The wait before the `attempt`th retry (from 0): doubling from SOCKET_RECONNECT_DELAY_MS up to
 * SOCKET_RECONNECT_DELAY_MAX_MS, each between half and all of that, so the screens of a restarted
 * server do not all come back in the same instant.
 */
export function reconnectDelay(attempt: number, random = Math.random()): number {
  const ceiling = Math.min(SOCKET_RECONNECT_DELAY_MS * 2 ** attempt, SOCKET_RECONNECT_DELAY_MAX_MS);
  return Math.round(ceiling * (0.5 + random / 2));
}

/**
 * How every live channel of the app connects (SPEC 9): socket.io on this origin, polling only, 30 s
 * timeout, reconnects 2 to 10 s apart, at most `reconnectionAttempts` times in a row.
 */
export function liveSocketOptions(reconnectionAttempts: number) {
  return {
    path: config.socketPath,
    transports: ["polling"],
    timeout: SOCKET_TIMEOUT_MS,
    reconnection: true,
    reconnectionDelay: SOCKET_RECONNECT_DELAY_MS,
    reconnectionDelayMax: SOCKET_RECONNECT_DELAY_MAX_MS,
    reconnectionAttempts,
  };
}

/**
 * Opens the socket.io live channel on this origin (SPEC 7 and 9): path /socket.io, polling only,
 * 30 s timeout, reconnects 2 to 10 s apart, 10 attempts. The stored token is read at every
 * (re)connect, so a refreshed session is used without reopening.
 */
export function openLiveChannel(
  identity: { userId: number | string; isAdmin: boolean },
  handlers: LiveChannelHandlers,
): LiveChannel {
  const socket = io({
    ...liveSocketOptions(SOCKET_RECONNECT_ATTEMPTS),
    auth: (send) =>
      send({ token: storage.getToken() ?? "", userId: identity.userId, isAdmin: identity.isAdmin }),
  });
  let connectedBefore = false;
  let closed = false;
  // Retries after the server closed the session itself (see "disconnect" below).
  let serverClosedRetries = 0;
  let retryTimer: ReturnType<typeof setTimeout> | undefined;

  socket.on("connect", () => {
    serverClosedRetries = 0;
    handlers.onState("connected", { recovered: connectedBefore });
    connectedBefore = true;
  });
  socket.on("disconnect", (reason: string) => {
    if (closed) return;
    if (reason === "io server disconnect") {
      // The server closed the session (a server shutting down the old way, a proxy's restart):
      // socket.io never reconnects by itself after that, so this does, with the manager's backoff.
      // A sign-out or a kick closes the channel first (`close`, on 'session-ended'), so it never
      // gets here; a session that did end is refused at the next handshake (onRejected).
      if (serverClosedRetries >= SOCKET_RECONNECT_ATTEMPTS) {
        handlers.onState("failed", { recovered: false });
        return;
      }
      handlers.onState("reconnecting", { recovered: false });
      retryTimer = setTimeout(() => {
        if (!closed && !socket.connected) socket.connect();
      }, reconnectDelay(serverClosedRetries++));
      return;
    }
    // `active` stays true while the manager will reconnect by itself (transport lost, ping timeout).
    handlers.onState(socket.active ? "reconnecting" : "disconnected", { recovered: false });
  });
  socket.on("connect_error", (error: Error & { data?: { reason?: unknown } }) => {
    if (closed || socket.active) return;
    const reason = typeof error.data?.reason === "string" ? error.data.reason : undefined;
    handlers.onState("failed", { recovered: false });
    handlers.onRejected?.(reason);
  });
  socket.io.on("reconnect_attempt", () => {
    if (!closed) handlers.onState("reconnecting", { recovered: false });
  });
  socket.io.on("reconnect_failed", () => {
    if (!closed) handlers.onState("failed", { recovered: false });
  });
  socket.on("new-alert", (payload: unknown) => handlers.onNewAlert(payload));
  socket.on("alerts:refresh", (payload: unknown) => handlers.onAlertsRefresh?.(payload));
  socket.on("joined-user-agencies", (payload: unknown) => handlers.onJoinedUserAgencies?.(payload));
  socket.on("error", (payload: unknown) => handlers.onError?.(payload));
  socket.on("session-ended", (payload: unknown) => handlers.onSessionEnded?.(payload));
  for (const event of RELAYED_LIVE_EVENTS) {
    socket.on(event, (payload: unknown) => publishLiveEvent(event, payload));
  }

  handlers.onState("connecting", { recovered: false });

  return {
    emit: (event, payload) => {
      if (payload === undefined) socket.emit(event);
      else socket.emit(event, payload);
    },
    reconnect: () => {
      if (closed || socket.connected) return;
      handlers.onState("connecting", { recovered: false });
      socket.connect();
    },
    close: () => {
      closed = true;
      clearTimeout(retryTimer);
      socket.removeAllListeners();
      socket.io.removeAllListeners();
      socket.disconnect();
    },
  };
}
