import { useEffect, useRef, useState } from "react";
import { openBoardChannel } from "../../api/board-socket";
import { type Board, BoardError, boardApi } from "./board-api";

/** How often the pairing screen asks whether it has been paired. */
export const PAIRING_POLL_MS = 3_000;
/** The board's fallback read while its live channel is up (the channel brings every change). */
export const BOARD_POLL_MS = 30_000;
/** The board's read while its live channel is down (a proxy that drops it, a restart under way). */
export const BOARD_OFFLINE_POLL_MS = 5_000;
/** The longest wait between tries while the server cannot be reached. */
const RETRY_MAX_MS = 10_000;

export function useNowEverySecond(): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = window.setInterval(() => setNow(Date.now()), 1000);
    return () => window.clearInterval(timer);
  }, []);
  return now;
}

/** Keeps the screen awake for as long as the board is open: asked again whenever the page is shown. */
export function useWakeLock(): void {
  useEffect(() => {
    let lock: WakeLockSentinel | null = null;
    let stopped = false;
    const acquire = async () => {
      if (stopped || document.visibilityState !== "visible" || !("wakeLock" in navigator)) return;
      if (lock && !lock.released) return;
      try {
        lock = await navigator.wakeLock.request("screen");
      } catch {
        // Refused (no gesture yet, battery saver): tried again on the next visibility change or minute.
      }
    };
    void acquire();
    const timer = window.setInterval(() => void acquire(), 60_000);
    document.addEventListener("visibilitychange", acquire);
    return () => {
      stopped = true;
      window.clearInterval(timer);
      document.removeEventListener("visibilitychange", acquire);
      void lock?.release().catch(() => undefined);
    };
  }, []);
}

/**
 * Repeats `step` every PAIRING_POLL_MS, backing off while it fails as unreachable; `false` from it
 * stops. For the pairing screen, which has no live channel (it has no credential yet).
 */
export function usePolling(step: () => Promise<unknown>, onUnreachable: (down: boolean) => void): void {
  const latest = useRef({ step, onUnreachable });
  latest.current = { step, onUnreachable };
  useEffect(() => {
    let timer = 0;
    let stopped = false;
    let failures = 0;
    const run = async () => {
      let wait = PAIRING_POLL_MS;
      try {
        const result = await latest.current.step();
        if (result === false) return;
        failures = 0;
        latest.current.onUnreachable(false);
      } catch (error) {
        if (!(error instanceof BoardError) || error.kind !== "unreachable") throw error;
        failures += 1;
        latest.current.onUnreachable(true);
        wait = Math.min(RETRY_MAX_MS, PAIRING_POLL_MS * failures);
      }
      if (!stopped) timer = window.setTimeout(run, wait);
    };
    void run();
    const online = () => {
      window.clearTimeout(timer);
      void run();
    };
    window.addEventListener("online", online);
    return () => {
      stopped = true;
      window.clearTimeout(timer);
      window.removeEventListener("online", online);
    };
  }, []);
}

export interface BoardFeed {
  board: Board | null;
  /** The server cannot be reached (reads fail). */
  down: boolean;
  /** The live channel is up. */
  live: boolean;
}

/**
 * The board of a paired screen, kept current: read at once, again on every change its live channel
 * reports (a new job, an answer) and whenever the channel comes back (events sent during a drop were
 * missed), and by a slow poll as a fallback (faster while the channel is down, backing off while the
 * server cannot be reached). `onBoard` sees each board read (before it is shown); `onUnpaired` is
 * called once the server says the screen is no longer paired.
 */
export function useBoard(token: string, onBoard: (board: Board) => void, onUnpaired: () => void): BoardFeed {
  const [state, setState] = useState<BoardFeed>({ board: null, down: false, live: false });
  const latest = useRef({ onBoard, onUnpaired });
  latest.current = { onBoard, onUnpaired };

  useEffect(() => {
    let stopped = false;
    let timer = 0;
    let failures = 0;
    let live = false;
    let reading = false;
    let again = false;

    const schedule = () => {
      window.clearTimeout(timer);
      if (stopped) return;
      const wait = failures
        ? Math.min(RETRY_MAX_MS, BOARD_OFFLINE_POLL_MS * failures)
        : live
          ? BOARD_POLL_MS
          : BOARD_OFFLINE_POLL_MS;
      timer = window.setTimeout(() => void read(), wait);
    };

    // One read at a time; a change reported during a read is read right after it.
    const read = async () => {
      if (stopped) return;
      if (reading) {
        again = true;
        return;
      }
      reading = true;
      try {
        const board = await boardApi.board(token);
        if (stopped) return;
        failures = 0;
        latest.current.onBoard(board);
        setState((s) => ({ ...s, board, down: false }));
      } catch (error) {
        if (stopped) return;
        if (error instanceof BoardError && error.kind === "unpaired") {
          stopped = true;
          latest.current.onUnpaired();
          return;
        }
        failures += 1;
        setState((s) => ({ ...s, down: true }));
      } finally {
        reading = false;
      }
      if (again) {
        again = false;
        void read();
      } else schedule();
    };

    const setLive = (up: boolean) => {
      live = up;
      setState((s) => (s.live === up ? s : { ...s, live: up }));
    };
    const channel = openBoardChannel(token, {
      onConnected: () => {
        setLive(true);
        void read();
      },
      onDisconnected: () => {
        setLive(false);
        schedule();
      },
      onChange: () => void read(),
      onSignedOut: () => void read(),
    });
    void read();
    const online = () => void read();
    window.addEventListener("online", online);
    return () => {
      stopped = true;
      window.clearTimeout(timer);
      window.removeEventListener("online", online);
      channel.close();
    };
  }, [token]);

  return state;
}
