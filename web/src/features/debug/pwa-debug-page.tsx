import Button from "@mui/material/Button";
import Container from "@mui/material/Container";
import Paper from "@mui/material/Paper";
import Stack from "@mui/material/Stack";
import Table from "@mui/material/Table";
import TableBody from "@mui/material/TableBody";
import TableCell from "@mui/material/TableCell";
import TableRow from "@mui/material/TableRow";
import Typography from "@mui/material/Typography";
import { useCallback, useEffect, useState } from "react";

interface PwaState {
  supported: boolean;
  registered: boolean;
  scope: string | null;
  scriptUrl: string | null;
  installing: string | null;
  waiting: string | null;
  active: string | null;
  controlled: boolean;
  manifestHref: string | null;
  standalone: boolean;
  error: string | null;
}

async function readPwaState(): Promise<PwaState> {
  const manifestHref = document.querySelector<HTMLLinkElement>('link[rel="manifest"]')?.href ?? null;
  const standalone = window.matchMedia?.("(display-mode: standalone)").matches ?? false;
  const base: PwaState = {
    supported: "serviceWorker" in navigator,
    registered: false,
    scope: null,
    scriptUrl: null,
    installing: null,
    waiting: null,
    active: null,
    controlled: false,
    manifestHref,
    standalone,
    error: null,
  };
  if (!base.supported) return base;
  try {
    const registration = await navigator.serviceWorker.getRegistration();
    const worker = registration?.active ?? registration?.waiting ?? registration?.installing ?? null;
    return {
      ...base,
      registered: Boolean(registration),
      scope: registration?.scope ?? null,
      scriptUrl: worker?.scriptURL ?? null,
      installing: registration?.installing?.state ?? null,
      waiting: registration?.waiting?.state ?? null,
      active: registration?.active?.state ?? null,
      controlled: Boolean(navigator.serviceWorker.controller),
    };
  } catch (error) {
    return { ...base, error: error instanceof Error ? error.message : String(error) };
  }
}

function yesNo(value: boolean): string {
  return value ? "Yes" : "No";
}

/** /?debug=pwa: what the browser reports about the service worker and the manifest, nothing else. */
export function PwaDebugPage({ onBackToLogin }: { onBackToLogin: () => void }) {
  const [state, setState] = useState<PwaState | null>(null);

  const refresh = useCallback(() => {
    void readPwaState().then(setState);
  }, []);

  useEffect(refresh, [refresh]);

  const rows: Array<[string, string]> = state
    ? [
        ["Service worker supported", yesNo(state.supported)],
        ["Registered", yesNo(state.registered)],
        ["Scope", state.scope ?? "none"],
        ["Script", state.scriptUrl ?? "none"],
        ["Active worker", state.active ?? "none"],
        ["Waiting worker", state.waiting ?? "none"],
        ["Installing worker", state.installing ?? "none"],
        ["Page controlled by a worker", yesNo(state.controlled)],
        ["Manifest link", state.manifestHref ?? "none"],
        ["Running standalone", yesNo(state.standalone)],
        ...(state.error ? ([["Error", state.error]] as Array<[string, string]>) : []),
      ]
    : [];

  return (
    <Container maxWidth="sm" component="main" sx={{ py: 3 }}>
      <Stack spacing={3}>
        <Typography variant="h4" component="h1">
          Installable App Debug
        </Typography>
        <Paper variant="outlined">
          {state === null ? (
            <Typography role="status" sx={{ p: 2 }}>
              Reading service worker state…
            </Typography>
          ) : (
            <Table size="small" aria-label="Service worker and manifest state">
              <TableBody>
                {rows.map(([name, value]) => (
                  <TableRow key={name}>
                    <TableCell component="th" scope="row">
                      {name}
                    </TableCell>
                    <TableCell sx={{ wordBreak: "break-all" }}>{value}</TableCell>
                  </TableRow>
                ))}
              </TableBody>
            </Table>
          )}
        </Paper>
        <Stack direction="row" spacing={2}>
          <Button variant="outlined" onClick={refresh}>
            Refresh
          </Button>
          <Button onClick={onBackToLogin}>Back to Login</Button>
        </Stack>
      </Stack>
    </Container>
  );
}
