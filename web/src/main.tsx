// First: zod must not probe eval under the page's Content-Security-Policy.
import "./app/zod-without-eval";
import { loadTimeFormats } from "@turnout/domain";
import { StrictMode, startTransition } from "react";
import { createRoot } from "react-dom/client";
import { App } from "./app/app";
import { preloadFirstScreen } from "./app/app-routes";
import { registerServiceWorker } from "./app/register-service-worker";
import { startInstallPromptCapture } from "./features/install";

// The browser offers the install prompt once, possibly before the (lazily loaded) dashboard exists.
startInstallPromptCapture();

preloadFirstScreen();

// Intl's date formats load while the dashboard's code is on its way, not when the first card needs them.
const whenIdle = window.requestIdleCallback ?? ((run: () => void) => window.setTimeout(run, 1));
whenIdle(() => loadTimeFormats());

const container = document.getElementById("root");
if (!container) throw new Error("index.html has no #root element");

// A transition lets React yield while it renders the first screen, so the page stays responsive.
startTransition(() => {
  createRoot(container).render(
    <StrictMode>
      <App />
    </StrictMode>,
  );
});

registerServiceWorker();
