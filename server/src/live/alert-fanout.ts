import type { Socket } from "socket.io";

/**
 * Live alerts under bursts (issue 14). Two halves:
 *
 * - `AlertFanout`, on the instance that committed the alerts: a token bucket per room. Ordinary
 *   traffic goes out at once, one `new-alert` per alert. Once a room has spent its bucket it is in a
 *   burst: alerts are not emitted one by one but counted, only the newest is kept (unpresented), and
 *   once per interval the room gets ONE `alerts:refresh` `{ count, newest }`; clients show `newest`
 *   and fetch the first page of their feed for the rest. The burst ends after an interval with no
 *   alert for the room. What a burst costs here is one alert row and a counter per room, however many
 *   alerts it holds, and each alert is presented only if it is emitted.
 *
 * - `boundAlertQueue`, on the instance holding the socket (a Redis-adapter broadcast is written to
 *   each local socket by that instance): a client whose engine.io write buffer already holds
 *   `maxBuffered` packets (a polling client that has not come back for them) gets no further alert
 *   packets queued; they are folded into one owed `alerts:refresh`, sent once its buffer drains.
 */

/** The live event that stands for several alerts. */
export const REFRESH_EVENT = "alerts:refresh";

export type FanoutOptions = {
  /** Alerts a room may receive one by one in a burst. */
  capacity: number;
  /** Tokens a room regains per second. */
  refillPerSecond: number;
  /** At most one `alerts:refresh` per room per interval. */
  intervalMs: number;
};

/**
 * Capacity 10: a real incident pages several brigades/units of one agency within seconds (a
 * structure fire upgrade, a storm's first SES jobs) and each of those pages should still arrive as
 * its own card. Refill 2/s: sustained paging to one agency above two a second is not ordinary traffic
 * but a replay or a flood. Within a burst a room gets one refresh a second and nothing else, so a
 * client in two agencies gets about 10 + 2 events a second of burst, however fast the replay is.
 * Interval 1 s keeps the newest alert of a burst on every screen within a second of its commit.
 */
export const FANOUT_DEFAULTS: FanoutOptions = { capacity: 10, refillPerSecond: 2, intervalMs: 1000 };

/** A packet cap well above what coalesced traffic puts in a buffer between two polls. */
export const MAX_BUFFERED_PACKETS = 32;

type Emit = (room: string, event: string, payload: unknown) => void;

type RoomState = {
  tokens: number;
  refilledAt: number;
  pending: { count: number; newestId: number; present: () => unknown } | null;
  /** Set while the room is in a burst: its refresh (or, after a quiet interval, its end) is due. */
  timer: NodeJS.Timeout | null;
};

export class AlertFanout {
  private readonly rooms = new Map<string, RoomState>();
  private readonly options: FanoutOptions;

  constructor(
    private readonly emit: Emit,
    options: Partial<FanoutOptions> = {},
    private readonly now: () => number = Date.now,
  ) {
    this.options = { ...FANOUT_DEFAULTS, ...options };
  }

  /**
   * One alert for one room; `present` builds its payload and is only called if it is emitted (at
   * once, or as the newest of a refresh).
   */
  offer(room: string, alertId: number, present: () => unknown): void {
    const state = this.refill(room);
    if (state.timer === null && state.tokens >= 1) {
      state.tokens -= 1;
      this.emit(room, "new-alert", present());
      return;
    }
    if (state.pending === null) state.pending = { count: 0, newestId: alertId, present };
    state.pending.count += 1;
    if (alertId >= state.pending.newestId) {
      state.pending.newestId = alertId;
      state.pending.present = present;
    }
    state.timer ??= setTimeout(() => this.flush(room), this.options.intervalMs).unref();
  }

  /** Stops every pending refresh (the app is closing). */
  close(): void {
    for (const state of this.rooms.values()) if (state.timer) clearTimeout(state.timer);
    this.rooms.clear();
  }

  private flush(room: string): void {
    const state = this.rooms.get(room);
    if (!state) return;
    if (!state.pending) {
      state.timer = null; // an interval without alerts: the burst is over
      return;
    }
    const { count, present } = state.pending;
    state.pending = null;
    state.timer = setTimeout(() => this.flush(room), this.options.intervalMs).unref();
    this.emit(room, REFRESH_EVENT, { count, newest: present() });
  }

  private refill(room: string): RoomState {
    const at = this.now();
    let state = this.rooms.get(room);
    if (!state) {
      state = { tokens: this.options.capacity, refilledAt: at, pending: null, timer: null };
      this.rooms.set(room, state);
      return state;
    }
    const gained = ((at - state.refilledAt) / 1000) * this.options.refillPerSecond;
    state.tokens = Math.min(this.options.capacity, state.tokens + gained);
    state.refilledAt = at;
    return state;
  }
}

// socket.io-parser's text encoding of an event on the main namespace: `2["event",payload]`.
const NEW_ALERT_PACKET = '2["new-alert",';
const REFRESH_PACKET = `2["${REFRESH_EVENT}",`;
const REFRESH_COUNT = /^2\["alerts:refresh",\{"count":(\d+)/;

/** How many alerts an encoded packet stands for: 0 when it is no alert event. */
function alertsIn(packet: unknown): number {
  if (typeof packet !== "string") return 0;
  if (packet.startsWith(NEW_ALERT_PACKET)) return 1;
  if (packet.startsWith(REFRESH_PACKET)) return Number(REFRESH_COUNT.exec(packet)?.[1] ?? 1);
  return 0;
}

/** The newest alert an alert packet carries (its payload, or a refresh's `newest`). */
function newestIn(packet: string): unknown {
  const [event, payload] = JSON.parse(packet.slice(1)) as [string, unknown];
  return event === REFRESH_EVENT ? (payload as { newest?: unknown }).newest : payload;
}

/** Packets engine.io holds for a socket until its client polls (typed private, read-only here). */
export function queuedPackets(socket: Socket): number {
  return (socket.conn as unknown as { writeBuffer: unknown[] }).writeBuffer.length;
}

/**
 * Caps the alert packets queued for one socket. socket.io has no outgoing middleware for broadcasts,
 * but every packet to a socket (its own emits and a room broadcast, local or arriving through the
 * Redis adapter) is written through its client's `writeToEngine`; that is wrapped here. Only alert
 * events are held back: session, room and admin events always go through.
 */
export function boundAlertQueue(socket: Socket, maxBuffered = MAX_BUFFERED_PACKETS): void {
  const client = socket.client as unknown as {
    writeToEngine: (packets: unknown, opts: unknown) => void;
  };
  const write = client.writeToEngine.bind(client);
  let owed = 0;
  let lastHeld: string | null = null;

  const payOwed = () => {
    if (owed === 0 || lastHeld === null) return;
    const count = owed;
    const newest = newestIn(lastHeld);
    owed = 0;
    lastHeld = null;
    socket.emit(REFRESH_EVENT, { count, newest });
  };

  client.writeToEngine = (packets, opts) => {
    const list = Array.isArray(packets) ? packets : [packets];
    const alerts = list.length === 1 ? alertsIn(list[0]) : 0;
    if (alerts === 0 || queuedPackets(socket) < maxBuffered) return write(packets, opts);
    if (owed === 0) socket.conn.once("drain", payOwed);
    owed += alerts;
    lastHeld = list[0] as string;
  };
}
