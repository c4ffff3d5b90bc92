import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import CssBaseline from "@mui/material/CssBaseline";
import { createTheme, ThemeProvider } from "@mui/material/styles";
import Typography from "@mui/material/Typography";
import { typePresentation } from "@turnout/domain";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { AlarmPlayer } from "../alarm/alarm-player";
import { JobMap, type MapMarker } from "../map/job-map";
import {
  type Board,
  BoardError,
  type BoardJob,
  boardApi,
  clockDigits,
  DISPLAY_TOKEN_KEY,
  etaSecondsLeft,
  secondsSince,
} from "./board-api";

/** How often the board reads its unit's jobs and answers (and the pairing screen its state). */
export const BOARD_POLL_MS = 3_000;
/** The longest wait between tries while the server cannot be reached. */
const RETRY_MAX_MS = 10_000;
/** A new emergency page younger than this sounds the alarm (an old one found after a restart does not). */
const ALARM_FRESH_MS = 120_000;

const theme = createTheme({
  palette: { mode: "dark", background: { default: "#0b0f14", paper: "#141a22" } },
});

function readToken(): string | null {
  try {
    return localStorage.getItem(DISPLAY_TOKEN_KEY);
  } catch {
    return null;
  }
}

function useNowEverySecond(): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = window.setInterval(() => setNow(Date.now()), 1000);
    return () => window.clearInterval(timer);
  }, []);
  return now;
}

/** Keeps the screen awake for as long as the board is open: asked again whenever the page is shown. */
function useWakeLock(): void {
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
 * The station turnout board (issue 34), at /board on the station's screen: a pairing code until an
 * admin pairs the screen with a display of their unit, then the unit's current job large (type,
 * message, address, map with station and job, time since the page), who is responding with their ETA
 * counting down, and the previous jobs; an idle clock after the display's idle time. It reads the
 * board every few seconds, so a network drop or a server restart ends by itself, and keeps the
 * screen awake.
 */
export function BoardPage() {
  const [token, setToken] = useState<string | null>(readToken);
  useWakeLock();
  const paired = useCallback((secret: string) => {
    try {
      localStorage.setItem(DISPLAY_TOKEN_KEY, secret);
    } catch {
      // A kiosk without storage stays paired until it reloads.
    }
    setToken(secret);
  }, []);
  const unpaired = useCallback(() => {
    try {
      localStorage.removeItem(DISPLAY_TOKEN_KEY);
    } catch {
      // nothing kept
    }
    setToken(null);
  }, []);
  return (
    <ThemeProvider theme={theme}>
      <CssBaseline />
      <Box sx={{ minHeight: "100dvh", bgcolor: "background.default", color: "text.primary" }}>
        {token ? <BoardScreen token={token} onUnpaired={unpaired} /> : <PairingScreen onPaired={paired} />}
      </Box>
    </ThemeProvider>
  );
}

/** Repeats `step` every BOARD_POLL_MS, backing off while it fails as unreachable; `false` from it stops. */
function usePolling(step: () => Promise<unknown>, onUnreachable: (down: boolean) => void): void {
  const latest = useRef({ step, onUnreachable });
  latest.current = { step, onUnreachable };
  useEffect(() => {
    let timer = 0;
    let stopped = false;
    let failures = 0;
    const run = async () => {
      let wait = BOARD_POLL_MS;
      try {
        const result = await latest.current.step();
        if (result === false) return;
        failures = 0;
        latest.current.onUnreachable(false);
      } catch (error) {
        if (!(error instanceof BoardError) || error.kind !== "unreachable") throw error;
        failures += 1;
        latest.current.onUnreachable(true);
        wait = Math.min(RETRY_MAX_MS, BOARD_POLL_MS * failures);
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

function PairingScreen({ onPaired }: { onPaired: (secret: string) => void }) {
  const [pairing, setPairing] = useState<{ secret: string; code: string } | null>(null);
  const [down, setDown] = useState(false);
  const current = useRef(pairing);
  current.current = pairing;
  usePolling(async () => {
    const shown = current.current;
    if (!shown) {
      const started = await boardApi.startPairing();
      setPairing({ secret: started.secret, code: started.code });
      return;
    }
    try {
      const state = await boardApi.pairingState(shown.secret);
      if (state.status === "paired") {
        onPaired(shown.secret);
        return false;
      }
    } catch (error) {
      // Expired: show a new code.
      if (error instanceof BoardError && error.kind === "unpaired") setPairing(null);
      else throw error;
    }
  }, setDown);
  return (
    <Box
      component="main"
      sx={{
        minHeight: "100dvh",
        display: "flex",
        flexDirection: "column",
        alignItems: "center",
        justifyContent: "center",
        gap: 4,
        p: 4,
        textAlign: "center",
      }}
    >
      <Typography variant="h3" component="h1">
        Turnout station board
      </Typography>
      {pairing ? (
        <>
          <Typography variant="h5" color="text.secondary">
            Pairing code
          </Typography>
          <Typography
            data-testid="pairing-code"
            sx={{
              fontSize: "clamp(64px, 14vw, 220px)",
              fontWeight: 800,
              letterSpacing: "0.15em",
              fontFamily: "monospace",
            }}
          >
            {pairing.code}
          </Typography>
          <Typography variant="h5" color="text.secondary" sx={{ maxWidth: 900 }}>
            An admin enters this code in Turnout under Admin, Displays, to show a unit's jobs here. It works
            once and expires after 10 minutes; a new one then appears.
          </Typography>
        </>
      ) : (
        <Typography variant="h5">Getting a pairing code…</Typography>
      )}
      {down ? (
        <Typography color="warning.main">Cannot reach the Turnout server. Trying again…</Typography>
      ) : null}
    </Box>
  );
}

function BoardScreen({ token, onUnpaired }: { token: string; onUnpaired: () => void }) {
  const [board, setBoard] = useState<Board | null>(null);
  const [down, setDown] = useState(false);
  const [player] = useState(() => new AlarmPlayer());
  const [soundLocked, setSoundLocked] = useState(() => player.getState().locked);
  const seen = useRef<Set<number> | null>(null);
  const now = useNowEverySecond();

  useEffect(() => {
    const stop = player.subscribe((state) => setSoundLocked(state.locked));
    return () => {
      stop();
      player.dispose();
    };
  }, [player]);

  usePolling(async () => {
    try {
      const next = await boardApi.board(token);
      const known = seen.current;
      // A new emergency job sounds the alarm; the jobs found on first load do not.
      if (known) {
        const fresh = next.jobs.filter(
          (job) =>
            !known.has(job.job_alert_id) &&
            job.type === "emergency" &&
            Date.now() - Date.parse(job.sent_at) < ALARM_FRESH_MS,
        );
        if (fresh.length) void player.ring("alarm", 10 * 60_000);
      }
      seen.current = new Set(next.jobs.map((job) => job.job_alert_id));
      setBoard(next);
    } catch (error) {
      if (error instanceof BoardError && error.kind === "unpaired") {
        onUnpaired();
        return false;
      }
      throw error;
    }
  }, setDown);

  if (!board) {
    return (
      <Box sx={{ minHeight: "100dvh", display: "flex", alignItems: "center", justifyContent: "center" }}>
        <Typography variant="h4">
          {down ? "Cannot reach the Turnout server. Trying again…" : "Loading the board…"}
        </Typography>
      </Box>
    );
  }
  const current = board.jobs[0];
  const active =
    current && secondsSince(current.sent_at, now) < board.display.idle_minutes * 60 ? current : null;
  const previous = board.jobs.filter((job) => job !== active);
  return (
    <Box
      component="main"
      sx={{ minHeight: "100dvh", display: "flex", flexDirection: "column", p: 3, gap: 2 }}
    >
      <Box sx={{ display: "flex", alignItems: "baseline", gap: 3 }}>
        <Typography variant="h4" component="h1" sx={{ fontWeight: 700 }}>
          {board.unit.name}
        </Typography>
        <Typography variant="h6" color="text.secondary">
          {board.display.name}
        </Typography>
        <Box sx={{ flex: 1 }} />
        {down ? (
          <Typography role="status" color="warning.main" variant="h6">
            Reconnecting…
          </Typography>
        ) : null}
        {soundLocked ? (
          <Button variant="outlined" color="warning" onClick={() => undefined}>
            Tap anywhere to allow the alarm sound
          </Button>
        ) : null}
        <Typography variant="h4" sx={{ fontVariantNumeric: "tabular-nums" }}>
          {new Date(now).toLocaleTimeString("en-AU", { hour: "2-digit", minute: "2-digit", hour12: false })}
        </Typography>
      </Box>
      {active ? <CurrentJob job={active} board={board} now={now} /> : <IdleClock now={now} />}
      <PreviousJobs jobs={previous} now={now} />
    </Box>
  );
}

function CurrentJob({ job, board, now }: { job: BoardJob; board: Board; now: number }) {
  const presentation = typePresentation(job.type);
  const markers = useMemo<MapMarker[]>(
    () =>
      job.position
        ? [
            {
              id: job.id,
              latitude: job.position.latitude,
              longitude: job.position.longitude,
              type: job.type,
              label: job.primary_address ?? job.type_label,
              newest: true,
            },
          ]
        : [],
    [job],
  );
  const station = useMemo(
    () => (board.unit.station ? { ...board.unit.station, name: `${board.unit.name} station` } : null),
    [board.unit],
  );
  return (
    <Box
      component="section"
      aria-label="Current job"
      sx={{ flex: 1, display: "grid", gridTemplateColumns: "3fr 2fr", gap: 3, minHeight: 0 }}
    >
      <Box sx={{ display: "flex", flexDirection: "column", gap: 2, minWidth: 0 }}>
        <Box sx={{ display: "flex", alignItems: "center", gap: 3 }}>
          <Box
            sx={{
              bgcolor: presentation.color,
              color: "#fff",
              px: 3,
              py: 1,
              borderRadius: 2,
              fontSize: 40,
              fontWeight: 800,
            }}
          >
            {presentation.label}
          </Box>
          <Typography
            data-testid="since-page"
            sx={{ fontSize: 96, fontWeight: 800, fontVariantNumeric: "tabular-nums", lineHeight: 1 }}
          >
            {clockDigits(secondsSince(job.started_at, now))}
          </Typography>
          <Typography variant="h6" color="text.secondary">
            since the page
          </Typography>
        </Box>
        <Typography data-testid="current-address" sx={{ fontSize: 56, fontWeight: 700, lineHeight: 1.1 }}>
          {job.primary_address ?? "No address in the page"}
        </Typography>
        <Typography
          data-testid="current-message"
          sx={{ fontSize: 30, lineHeight: 1.3, overflowWrap: "anywhere" }}
        >
          {job.message}
        </Typography>
        <Responders job={job} now={now} />
      </Box>
      <Box sx={{ borderRadius: 2, overflow: "hidden", minHeight: 420 }}>
        <JobMap
          tileUrl={board.map.tile_url}
          attribution={board.map.attribution}
          markers={markers}
          station={station}
          fitKey={String(job.id)}
          interactive={false}
          label="Map of the job and the station"
        />
      </Box>
    </Box>
  );
}

function Responders({ job, now }: { job: BoardJob; now: number }) {
  const total = job.responders.length + job.others_responding;
  return (
    <Box component="section" aria-label="Responding" sx={{ mt: 1 }}>
      <Typography variant="h4" sx={{ mb: 1, fontWeight: 700 }}>
        Responding: {total}
        {job.not_available ? (
          <Typography component="span" variant="h5" color="text.secondary">
            {"  "}· not available: {job.not_available}
          </Typography>
        ) : null}
      </Typography>
      <Box
        component="ul"
        sx={{
          listStyle: "none",
          p: 0,
          m: 0,
          display: "grid",
          gridTemplateColumns: "repeat(auto-fill, minmax(300px, 1fr))",
          gap: 1,
        }}
      >
        {job.responders.map((person) => {
          const left = etaSecondsLeft(person.answered_at, person.eta_minutes, now);
          return (
            <Box
              component="li"
              key={`${person.name}-${person.answered_at}`}
              sx={{
                display: "flex",
                justifyContent: "space-between",
                bgcolor: "background.paper",
                px: 2,
                py: 1,
                borderRadius: 1,
                fontSize: 30,
              }}
            >
              <span>{person.name}</span>
              <Box
                component="span"
                sx={{
                  fontVariantNumeric: "tabular-nums",
                  color: left !== null && left <= 0 ? "success.main" : "inherit",
                }}
              >
                {left === null ? "on the way" : left <= 0 ? "due" : clockDigits(left)}
              </Box>
            </Box>
          );
        })}
        {job.others_responding ? (
          <Box component="li" sx={{ px: 2, py: 1, fontSize: 26, color: "text.secondary" }}>
            +{job.others_responding} from other units
          </Box>
        ) : null}
      </Box>
    </Box>
  );
}

function IdleClock({ now }: { now: number }) {
  const date = new Date(now);
  return (
    <Box
      component="section"
      aria-label="Idle clock"
      sx={{
        flex: 1,
        display: "flex",
        flexDirection: "column",
        alignItems: "center",
        justifyContent: "center",
      }}
    >
      <Typography
        data-testid="idle-clock"
        sx={{
          fontSize: "clamp(96px, 16vw, 280px)",
          fontWeight: 800,
          fontVariantNumeric: "tabular-nums",
          lineHeight: 1,
        }}
      >
        {date.toLocaleTimeString("en-AU", { hour: "2-digit", minute: "2-digit", hour12: false })}
      </Typography>
      <Typography variant="h3" color="text.secondary">
        {date.toLocaleDateString("en-AU", { weekday: "long", day: "numeric", month: "long" })}
      </Typography>
    </Box>
  );
}

function PreviousJobs({ jobs, now }: { jobs: BoardJob[]; now: number }) {
  if (jobs.length === 0) return null;
  return (
    <Box
      component="section"
      aria-label="Previous jobs"
      sx={{ display: "grid", gridTemplateColumns: "repeat(auto-fill, minmax(360px, 1fr))", gap: 1.5 }}
    >
      {jobs.slice(0, 4).map((job) => (
        <Box
          key={job.id}
          sx={{
            bgcolor: "background.paper",
            borderLeft: `8px solid ${typePresentation(job.type).color}`,
            borderRadius: 1,
            p: 1.5,
          }}
        >
          <Typography variant="h6" noWrap>
            {job.type_label} · {clockDigits(secondsSince(job.sent_at, now))} ago
          </Typography>
          <Typography noWrap color="text.secondary">
            {job.primary_address ?? job.message}
          </Typography>
        </Box>
      ))}
    </Box>
  );
}

export default BoardPage;
