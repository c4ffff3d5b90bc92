import { waitFor } from "@testing-library/react";
import { publishLiveEvent, RELAYED_LIVE_EVENTS, type RelayedLiveEvent } from "../api/live-events";
import type { LiveChannel, LiveChannelHandlers, LiveClientEvent } from "../api/live-socket";

/** A live channel under test control: nothing connects until the test says so. */
export class FakeLiveChannel implements LiveChannel {
  readonly emitted: Array<{ event: LiveClientEvent; payload: unknown }> = [];
  closed = false;
  reconnectRequests = 0;
  private connects = 0;

  constructor(
    readonly identity: { userId: number | string; isAdmin: boolean },
    private readonly handlers: LiveChannelHandlers,
  ) {}

  emit = (event: LiveClientEvent, payload?: unknown) => {
    this.emitted.push({ event, payload });
  };

  reconnect = () => {
    this.reconnectRequests += 1;
  };

  close = () => {
    this.closed = true;
  };

  /** The server accepted the connection (again). */
  connect(): void {
    this.handlers.onState("connected", { recovered: this.connects > 0 });
    this.connects += 1;
  }

  /**
   * The server confirms the page's last join (`joined-user-agencies`); the default payload names no
   * agencies or units, so the page learns nothing from it but that it is in its rooms.
   */
  acknowledgeJoin(payload: unknown = {}): void {
    this.handlers.onJoinedUserAgencies?.(payload);
  }

  /** The transport dropped; the client is trying again. */
  drop(): void {
    this.handlers.onState("reconnecting", { recovered: false });
  }

  /** Every reconnect attempt failed. */
  fail(): void {
    this.handlers.onState("failed", { recovered: false });
  }

  /** The server sent an event. */
  serverEmit(
    event:
      | "new-alert"
      | "alerts:refresh"
      | "joined-user-agencies"
      | "error"
      | "session-ended"
      | RelayedLiveEvent,
    payload: unknown,
  ): void {
    if ((RELAYED_LIVE_EVENTS as readonly string[]).includes(event))
      publishLiveEvent(event as RelayedLiveEvent, payload);
    if (event === "new-alert") this.handlers.onNewAlert(payload);
    if (event === "alerts:refresh") this.handlers.onAlertsRefresh?.(payload);
    if (event === "joined-user-agencies") this.handlers.onJoinedUserAgencies?.(payload);
    if (event === "error") this.handlers.onError?.(payload);
    if (event === "session-ended") this.handlers.onSessionEnded?.(payload);
  }

  /** The server refused the handshake. */
  reject(reason?: string): void {
    this.handlers.onState("failed", { recovered: false });
    this.handlers.onRejected?.(reason);
  }
}

/** Every fake channel the app opened in the current test, oldest first. */
export const fakeLiveChannels: FakeLiveChannel[] = [];

/** The channel the app opened last (the page's one socket). */
export function latestLiveChannel(): FakeLiveChannel {
  const channel = fakeLiveChannels.at(-1);
  if (!channel) throw new Error("the app opened no live channel");
  return channel;
}

/**
 * The page's channel once the app has opened it: the feed opens it in an effect, which can run
 * after the screen a test waited for is already in the document (a cold module cache shows it).
 */
export function liveChannelOpened(): Promise<FakeLiveChannel> {
  return waitFor(latestLiveChannel);
}

/** Stands in for `openLiveChannel` in every web test (see setup.ts). */
export function openFakeLiveChannel(
  identity: { userId: number | string; isAdmin: boolean },
  handlers: LiveChannelHandlers,
): LiveChannel {
  const channel = new FakeLiveChannel(identity, handlers);
  fakeLiveChannels.push(channel);
  handlers.onState("connecting", { recovered: false });
  return channel;
}
