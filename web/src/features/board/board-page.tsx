import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import CssBaseline from "@mui/material/CssBaseline";
import { createTheme, ThemeProvider } from "@mui/material/styles";
import Typography from "@mui/material/Typography";
import { useCallback, useEffect, useRef, useState } from "react";
import { AlarmPlayer } from "../../ui/alarm-player";
import { type Board, BoardError, boardApi, DISPLAY_TOKEN_KEY, secondsSince } from "./board-api";
import { CurrentJob, IdleClock, PreviousJobs } from "./board-job";
import { useBoard, useNowEverySecond, usePolling, useWakeLock } from "./use-board";

/** A new emergency page younger than this sounds the alarm (an old one found after a restart does not). */
const ALARM_FRESH_MS = 120_000;

/** A page-high column with its content centred both ways. */
const centredPageSx = {
  minHeight: "100dvh",
  display: "flex",
  flexDirection: "column",
  alignItems: "center",
  justifyContent: "center",
} as const;

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

/**
 * The station turnout board (issue 34), at /board on the station's screen: a pairing code until an
 * admin pairs the screen with a display of their unit, then the unit's current job large (type,
 * message, address, map with station and job, time since the page), who is responding with their ETA
 * counting down, and the previous jobs; an idle clock after the display's idle time. New jobs and
 * answers come over the live channel (use-board.ts), with a slow poll behind it; a network drop or a
 * server restart ends by itself, and the screen is kept awake.
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
    <Box component="main" sx={{ ...centredPageSx, gap: 4, p: 4, textAlign: "center" }}>
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

  const ringForNewJobs = useCallback(
    (next: Board) => {
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
    },
    [player],
  );
  const { board, down, live } = useBoard(token, ringForNewJobs, onUnpaired);

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
      data-live={live ? "connected" : "reconnecting"}
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
        {down || !live ? (
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

export default BoardPage;
