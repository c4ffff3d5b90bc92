import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import Container from "@mui/material/Container";
import List from "@mui/material/List";
import ListItem from "@mui/material/ListItem";
import Paper from "@mui/material/Paper";
import Stack from "@mui/material/Stack";
import TextField from "@mui/material/TextField";
import Typography from "@mui/material/Typography";
import { type FocusEvent, type FormEvent, useCallback, useEffect, useState } from "react";

interface LogEntry {
  id: number;
  at: string;
  text: string;
}

function timestamp(date: Date): string {
  const pad = (n: number, width = 2) => String(n).padStart(width, "0");
  return `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}.${pad(date.getMilliseconds(), 3)}`;
}

/** A readable name for the element that gained or lost focus. */
function describeTarget(target: EventTarget | null): string {
  if (!(target instanceof HTMLElement)) return "unknown element";
  const labelled =
    target.getAttribute("aria-label") ??
    (target instanceof HTMLInputElement ? target.labels?.[0]?.textContent : null) ??
    target.textContent;
  const name = labelled?.trim() || target.id || target.tagName.toLowerCase();
  return `${target.tagName.toLowerCase()} "${name}"`;
}

let nextEntryId = 1;

/**
 * /?debug=keyboard: a page for checking on-screen keyboards on phones. It logs focus, blur,
 * window resize and visual-viewport resize (the keyboard opening shrinks the visual viewport).
 */
export function KeyboardDebugPage({ onBackToLogin }: { onBackToLogin: () => void }) {
  const [testValue, setTestValue] = useState("");
  const [formValue, setFormValue] = useState("");
  const [clicks, setClicks] = useState(0);
  const [log, setLog] = useState<LogEntry[]>([]);

  const addLog = useCallback((text: string) => {
    const entry = { id: nextEntryId++, at: timestamp(new Date()), text };
    setLog((current) => [entry, ...current].slice(0, 200));
  }, []);

  useEffect(() => {
    const handleWindowResize = () => addLog(`window resize: ${window.innerWidth}x${window.innerHeight}`);
    const viewport = window.visualViewport;
    const handleViewportResize = () => {
      if (viewport)
        addLog(`visualViewport resize: ${Math.round(viewport.width)}x${Math.round(viewport.height)}`);
    };
    window.addEventListener("resize", handleWindowResize);
    viewport?.addEventListener("resize", handleViewportResize);
    return () => {
      window.removeEventListener("resize", handleWindowResize);
      viewport?.removeEventListener("resize", handleViewportResize);
    };
  }, [addLog]);

  const handleFocus = (event: FocusEvent) => addLog(`focus: ${describeTarget(event.target)}`);
  const handleBlur = (event: FocusEvent) => addLog(`blur: ${describeTarget(event.target)}`);

  const handleFakeSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    addLog(`fake submit prevented (value: "${formValue}")`);
  };

  const handleCount = () => {
    setClicks((n) => n + 1);
    addLog("counter button clicked");
  };

  return (
    <Container maxWidth="sm" component="main" sx={{ py: 3 }} onFocus={handleFocus} onBlur={handleBlur}>
      <Stack spacing={3}>
        <Typography variant="h4" component="h1">
          Keyboard Debug
        </Typography>

        <Box component="section" aria-labelledby="kbd-input-heading">
          <Typography id="kbd-input-heading" variant="h6" component="h2" gutterBottom>
            Test Input
          </Typography>
          <TextField
            label="Test input"
            value={testValue}
            onChange={(event) => setTestValue(event.target.value)}
            fullWidth
          />
        </Box>

        <Box component="section" aria-labelledby="kbd-counter-heading">
          <Typography id="kbd-counter-heading" variant="h6" component="h2" gutterBottom>
            Click Counter
          </Typography>
          <Stack direction="row" spacing={2} sx={{ alignItems: "center" }}>
            <Button variant="contained" onClick={handleCount}>
              Count Click
            </Button>
            <Typography role="status" aria-live="polite">
              Clicks: {clicks}
            </Typography>
          </Stack>
        </Box>

        <Box component="section" aria-labelledby="kbd-form-heading">
          <Typography id="kbd-form-heading" variant="h6" component="h2" gutterBottom>
            Fake Submit
          </Typography>
          <Stack component="form" spacing={2} onSubmit={handleFakeSubmit} aria-label="Fake submit form">
            <TextField
              label="Form field"
              value={formValue}
              onChange={(event) => setFormValue(event.target.value)}
              fullWidth
            />
            <Button type="submit" variant="outlined">
              Fake Submit
            </Button>
          </Stack>
        </Box>

        <Box component="section" aria-labelledby="kbd-log-heading">
          <Stack direction="row" sx={{ alignItems: "center", justifyContent: "space-between", mb: 1 }}>
            <Typography id="kbd-log-heading" variant="h6" component="h2">
              Event Log
            </Typography>
            <Button onClick={() => setLog([])}>Clear Log</Button>
          </Stack>
          {/* A fixed height: a log that grew on focus would move the buttons below it mid-click. */}
          <Paper variant="outlined" sx={{ height: 320, overflow: "auto" }}>
            <List dense role="log" aria-labelledby="kbd-log-heading" aria-live="polite">
              {log.length === 0 ? (
                <ListItem>
                  <Typography color="text.secondary">No events yet</Typography>
                </ListItem>
              ) : (
                log.map((entry) => (
                  <ListItem key={entry.id}>
                    <Typography sx={{ fontFamily: "monospace", fontSize: 14 }}>
                      <time>{entry.at}</time> {entry.text}
                    </Typography>
                  </ListItem>
                ))
              )}
            </List>
          </Paper>
        </Box>

        <Button variant="text" onClick={onBackToLogin} sx={{ alignSelf: "flex-start" }}>
          Back to Login
        </Button>
      </Stack>
    </Container>
  );
}
