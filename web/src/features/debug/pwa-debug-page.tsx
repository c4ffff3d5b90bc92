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

const UNSUPPORTED = "unsupported";
const DISPLAY_MODES = ["fullscreen", "standalone", "minimal-ui", "window-controls-overlay", "browser"];

type Row = [name: string, value: string];

interface Section {
  title: string;
  rows: Row[];
}

function yesNo(value: boolean): string {
  return value ? "Yes" : "No";
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function workerText(worker: ServiceWorker | null | undefined): string {
  return worker ? `${worker.state} (${worker.scriptURL})` : "none";
}

async function readWorker(): Promise<Section> {
  const title = "Service Worker";
  if (!("serviceWorker" in navigator)) {
    return { title, rows: [["Service worker supported", `No (${UNSUPPORTED})`]] };
  }
  try {
    const registration = await navigator.serviceWorker.getRegistration();
    const controller = navigator.serviceWorker.controller;
    return {
      title,
      rows: [
        ["Service worker supported", "Yes"],
        ["Registered", yesNo(Boolean(registration))],
        ["Scope", registration?.scope ?? "none"],
        ["Active worker", workerText(registration?.active)],
        ["Waiting worker", workerText(registration?.waiting)],
        ["Installing worker", workerText(registration?.installing)],
        ["Controller", controller ? workerText(controller) : "none (page not controlled)"],
      ],
    };
  } catch (error) {
    return {
      title,
      rows: [
        ["Service worker supported", "Yes"],
        ["Error", errorText(error)],
      ],
    };
  }
}

async function readManifest(): Promise<Section> {
  const title = "Manifest";
  const href = document.querySelector<HTMLLinkElement>('link[rel="manifest"]')?.href;
  if (!href) return { title, rows: [["Manifest link", "none"]] };
  try {
    // A static file of the app itself, not an API call: no session headers belong on it.
    const response = await fetch(href, { cache: "no-store" });
    if (!response.ok) return { title, rows: [["Manifest", `${href}: HTTP ${response.status}`]] };
    const manifest = (await response.json()) as Record<string, unknown>;
    const icons = Array.isArray(manifest.icons) ? (manifest.icons as Array<{ purpose?: string }>) : [];
    const maskable = icons.filter((icon) => icon.purpose?.split(" ").includes("maskable")).length;
    const text = (value: unknown) => (typeof value === "string" && value ? value : "missing");
    return {
      title,
      rows: [
        ["Manifest", href],
        ["Name", text(manifest.name)],
        ["Short name", text(manifest.short_name)],
        ["Display", text(manifest.display)],
        ["Start URL", text(manifest.start_url)],
        ["Icons", `${icons.length} (${maskable} maskable)`],
        ["Theme colour", text(manifest.theme_color)],
      ],
    };
  } catch (error) {
    return { title, rows: [["Manifest", `${href}: ${errorText(error)}`]] };
  }
}

function readDisplay(installPromptSeen: boolean, appInstalledSeen: boolean): Section {
  const mode = window.matchMedia
    ? (DISPLAY_MODES.find((m) => window.matchMedia(`(display-mode: ${m})`).matches) ?? "unknown")
    : UNSUPPORTED;
  const iosStandalone = (navigator as Navigator & { standalone?: boolean }).standalone;
  return {
    title: "Install and Display",
    rows: [
      [
        "Install prompt (beforeinstallprompt)",
        "BeforeInstallPromptEvent" in window || "onbeforeinstallprompt" in window
          ? installPromptSeen
            ? "available: fired since this page opened"
            : "supported, not fired since this page opened"
          : UNSUPPORTED,
      ],
      ["App installed event", appInstalledSeen ? "fired since this page opened" : "not seen"],
      ["Display mode", mode],
      [
        "iOS home-screen flag (navigator.standalone)",
        iosStandalone === undefined ? UNSUPPORTED : yesNo(iosStandalone),
      ],
    ],
  };
}

async function readCaches(): Promise<Section> {
  const title = "Caches";
  if (!("caches" in window)) return { title, rows: [["Cache storage", UNSUPPORTED]] };
  try {
    const names = await caches.keys();
    if (names.length === 0) return { title, rows: [["Caches", "none"]] };
    const rows = await Promise.all(
      names.map(async (name): Promise<Row> => {
        const entries = await (await caches.open(name)).keys();
        return [name, `${entries.length} ${entries.length === 1 ? "entry" : "entries"}`];
      }),
    );
    return { title, rows };
  } catch (error) {
    return { title, rows: [["Error", errorText(error)]] };
  }
}

/** Asks the server for a new /sw.js and says what came of it. */
async function checkForUpdates(): Promise<string> {
  if (!("serviceWorker" in navigator)) return `Service worker ${UNSUPPORTED}`;
  const registration = await navigator.serviceWorker.getRegistration();
  if (!registration) return "No service worker is registered";
  try {
    await registration.update();
  } catch (error) {
    return `Update check failed: ${errorText(error)}`;
  }
  const at = new Date().toLocaleTimeString("en-AU");
  if (registration.installing) return `Checked at ${at}: a new version is installing`;
  if (registration.waiting) return `Checked at ${at}: a new version is waiting to take over`;
  return `Checked at ${at}: no update found`;
}

/**
 * /?debug=pwa: what the browser reports about the service worker, the manifest, installing, the
 * display mode and the caches; 'unsupported' wherever the browser lacks the API.
 */
export function PwaDebugPage({ onBackToLogin }: { onBackToLogin: () => void }) {
  const [read, setRead] = useState<{ worker: Section; manifest: Section; caches: Section } | null>(null);
  const [installPromptSeen, setInstallPromptSeen] = useState(false);
  const [appInstalledSeen, setAppInstalledSeen] = useState(false);
  const [updateResult, setUpdateResult] = useState<string | null>(null);
  const [checking, setChecking] = useState(false);

  const refresh = useCallback(() => {
    void Promise.all([readWorker(), readManifest(), readCaches()]).then(([worker, manifest, cacheList]) =>
      setRead({ worker, manifest, caches: cacheList }),
    );
  }, []);

  useEffect(refresh, [refresh]);

  useEffect(() => {
    const handlePrompt = () => setInstallPromptSeen(true);
    const handleInstalled = () => setAppInstalledSeen(true);
    window.addEventListener("beforeinstallprompt", handlePrompt);
    window.addEventListener("appinstalled", handleInstalled);
    const container = "serviceWorker" in navigator ? navigator.serviceWorker : null;
    container?.addEventListener("controllerchange", refresh);
    return () => {
      window.removeEventListener("beforeinstallprompt", handlePrompt);
      window.removeEventListener("appinstalled", handleInstalled);
      container?.removeEventListener("controllerchange", refresh);
    };
  }, [refresh]);

  const handleCheckForUpdates = async () => {
    setChecking(true);
    setUpdateResult(await checkForUpdates());
    setChecking(false);
    refresh();
  };

  const shown = read
    ? [read.worker, read.manifest, readDisplay(installPromptSeen, appInstalledSeen), read.caches]
    : null;

  return (
    <Container maxWidth="md" component="main" sx={{ py: 3 }}>
      <Stack spacing={3}>
        <Typography variant="h4" component="h1">
          Installable App Debug
        </Typography>
        {shown === null ? (
          <Typography role="status">Reading service worker state…</Typography>
        ) : (
          shown.map((section) => (
            <section key={section.title} aria-label={section.title}>
              <Typography variant="h6" component="h2" gutterBottom>
                {section.title}
              </Typography>
              <Paper variant="outlined">
                <Table size="small" aria-label={section.title}>
                  <TableBody>
                    {section.rows.map(([name, value]) => (
                      <TableRow key={name}>
                        <TableCell component="th" scope="row" sx={{ width: "40%" }}>
                          {name}
                        </TableCell>
                        <TableCell sx={{ wordBreak: "break-all" }}>{value}</TableCell>
                      </TableRow>
                    ))}
                  </TableBody>
                </Table>
              </Paper>
            </section>
          ))
        )}
        <Typography role="status" aria-live="polite">
          {updateResult ?? ""}
        </Typography>
        <Stack direction="row" spacing={2} sx={{ flexWrap: "wrap" }}>
          <Button variant="contained" onClick={() => void handleCheckForUpdates()} disabled={checking}>
            Check for Updates
          </Button>
          <Button variant="outlined" onClick={refresh}>
            Refresh
          </Button>
          <Button onClick={onBackToLogin}>Back to Login</Button>
        </Stack>
      </Stack>
    </Container>
  );
}
