import { SOCKET_RECONNECT_DELAY_MS } from "@turnout/domain";
import { subscribeLiveEvent } from "./live-events";

type Handler = (payload?: unknown) => void;

/** A socket.io client socket that records its listeners, so a test can play the server. */
const fakeSocket = vi.hoisted(() => {
  const handlers = new Map<string, Handler>();
  const socket = {
    handlers,
    active: false,
    connected: false,
    on: (event: string, handler: Handler) => {
      handlers.set(event, handler);
      return socket;
    },
    emit: () => socket,
    connects: 0,
    connect: () => {
      socket.connects += 1;
      return socket;
    },
    disconnect: () => socket,
    removeAllListeners: () => {
      handlers.clear();
      return socket;
    },
    io: { on: () => undefined, removeAllListeners: () => undefined },
  };
  return socket;
});

vi.mock("socket.io-client", () => ({ io: () => fakeSocket }));

// setup.ts replaces the live channel with a fake in every test; this file checks the real one.
const { openLiveChannel, reconnectDelay } =
  await vi.importActual<typeof import("./live-socket")>("./live-socket");

describe("openLiveChannel", () => {
  it("relays user-alerts:pending to listeners until the channel is closed", () => {
    const received: unknown[] = [];
    const unsubscribe = subscribeLiveEvent("user-alerts:pending", (payload) => received.push(payload));
    const channel = openLiveChannel(
      { userId: 1, isAdmin: true },
      { onState: () => {}, onNewAlert: () => {} },
    );

    fakeSocket.handlers.get("user-alerts:pending")?.({ pending_alerts: 3 });
    expect(received).toEqual([{ pending_alerts: 3 }]);

    channel.close();
    fakeSocket.handlers.get("user-alerts:pending")?.({ pending_alerts: 4 });
    expect(received).toEqual([{ pending_alerts: 3 }]);
    unsubscribe();
  });

  it("hands alerts:refresh (a coalesced burst) to its handler", () => {
    const refreshes: unknown[] = [];
    const channel = openLiveChannel(
      { userId: 1, isAdmin: false },
      { onState: () => {}, onNewAlert: () => {}, onAlertsRefresh: (payload) => refreshes.push(payload) },
    );
    fakeSocket.handlers.get("alerts:refresh")?.({ count: 40, newest: { id: 7 } });
    expect(refreshes).toEqual([{ count: 40, newest: { id: 7 } }]);
    channel.close();
  });

  it("reconnects with backoff after the server closed the session, until it connects", () => {
    vi.useFakeTimers();
    try {
      const states: string[] = [];
      const channel = openLiveChannel(
        { userId: 1, isAdmin: false },
        { onState: (s) => states.push(s), onNewAlert: () => {} },
      );
      fakeSocket.connects = 0;
      fakeSocket.handlers.get("connect")?.();
      fakeSocket.handlers.get("disconnect")?.("io server disconnect");
      expect(states.at(-1)).toBe("reconnecting");
      vi.advanceTimersByTime(SOCKET_RECONNECT_DELAY_MS / 2 - 1);
      expect(fakeSocket.connects).toBe(0);
      vi.advanceTimersByTime(SOCKET_RECONNECT_DELAY_MS);
      expect(fakeSocket.connects).toBe(1);
      // Refused again before connecting: the next try waits longer.
      fakeSocket.handlers.get("disconnect")?.("io server disconnect");
      vi.advanceTimersByTime(SOCKET_RECONNECT_DELAY_MS);
      expect(fakeSocket.connects).toBe(1);
      vi.advanceTimersByTime(SOCKET_RECONNECT_DELAY_MS * 2);
      expect(fakeSocket.connects).toBe(2);
      fakeSocket.handlers.get("connect")?.();
      expect(states.at(-1)).toBe("connected");
      channel.close();
    } finally {
      vi.useRealTimers();
    }
  });

  it("does not reconnect once closed (a sign-out, or a session the server ended)", () => {
    vi.useFakeTimers();
    try {
      const channel = openLiveChannel(
        { userId: 1, isAdmin: false },
        { onState: () => {}, onNewAlert: () => {} },
      );
      fakeSocket.connects = 0;
      const disconnect = fakeSocket.handlers.get("disconnect");
      channel.close();
      disconnect?.("io server disconnect");
      vi.advanceTimersByTime(60_000);
      expect(fakeSocket.connects).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it("waits from 2 s doubling up to 10 s between tries, each between half and all of that", () => {
    expect(reconnectDelay(0, 0)).toBe(1_000);
    expect(reconnectDelay(0, 1)).toBe(2_000);
    expect(reconnectDelay(1, 1)).toBe(4_000);
    expect(reconnectDelay(5, 1)).toBe(10_000);
    expect(reconnectDelay(5, 0)).toBe(5_000);
  });
});
