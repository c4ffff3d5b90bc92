import { io } from "socket.io-client";
import { liveSocketOptions, reconnectDelay } from "./live-socket";

/** What the board hears: its unit's new jobs, a burst of them, and the answers to them. */
export const BOARD_LIVE_EVENTS = ["new-alert", "alerts:refresh", "alert:responses"] as const;
export type BoardLiveEvent = (typeof BOARD_LIVE_EVENTS)[number];

export interface BoardChannelHandlers {
  /** The channel is up: a first connect, or back after a drop (events sent meanwhile were missed). */
  onConnected: () => void;
  /** The channel is down; it is being brought back by itself. */
  onDisconnected: () => void;
  /** Something changed on the unit's board (the payload carries no names: read the board again). */
  onChange: (event: BoardLiveEvent) => void;
  /**
   * The server said this screen is no longer paired (or refused its token): read the board, which
   * tells for sure (401).
   */
  onSignedOut: () => void;
}

/**
 * The station board's live channel (issue 34): socket.io on this origin with the display's token,
 * polling only, like the member feed's channel (live-socket.ts). A kiosk has nobody to press Retry, so
 * it never gives up: the manager's reconnects go on without a limit, and after the server closed the
 * session itself, or refused the handshake (a restart under way), it tries again with the same backoff
 * (2 to 10 s).
 */
export function openBoardChannel(token: string, handlers: BoardChannelHandlers): { close: () => void } {
  const socket = io({
    ...liveSocketOptions(Number.POSITIVE_INFINITY),
    auth: { displayToken: token },
  });
  let closed = false;
  let retries = 0;
  let retryTimer: ReturnType<typeof setTimeout> | undefined;
  const retry = () => {
    clearTimeout(retryTimer);
    retryTimer = setTimeout(() => {
      if (!closed && !socket.connected) socket.connect();
    }, reconnectDelay(retries++));
  };

  socket.on("connect", () => {
    retries = 0;
    handlers.onConnected();
  });
  socket.on("disconnect", (reason: string) => {
    if (closed) return;
    handlers.onDisconnected();
    // The server closed the session: socket.io does not reconnect by itself after that.
    if (reason === "io server disconnect") retry();
  });
  socket.on("connect_error", (error: Error & { data?: { reason?: unknown } }) => {
    // `active`: the manager is reconnecting by itself (the server is out of reach).
    if (closed || socket.active) return;
    handlers.onDisconnected();
    if (error.data?.reason === "invalid") handlers.onSignedOut();
    retry();
  });
  socket.on("display-signed-out", () => {
    if (!closed) handlers.onSignedOut();
  });
  for (const event of BOARD_LIVE_EVENTS) {
    socket.on(event, () => {
      if (!closed) handlers.onChange(event);
    });
  }

  return {
    close: () => {
      closed = true;
      clearTimeout(retryTimer);
      socket.removeAllListeners();
      socket.io.removeAllListeners();
      socket.disconnect();
    },
  };
}
