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
    connect: () => socket,
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
const { openLiveChannel } = await vi.importActual<typeof import("./live-socket")>("./live-socket");

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
});
