// First: zod must not probe eval under the page's Content-Security-Policy.
import "./app/zod-without-eval";
import { StrictMode, startTransition } from "react";
import { createRoot } from "react-dom/client";
import { App } from "./app/app";
import { preloadFirstScreen } from "./app/app-routes";
import { registerServiceWorker } from "./app/register-service-worker";
import { startInstallPromptCapture } from "./features/install";
import { reportUncaughtErrors } from "./ui/load-failure";

reportUncaughtErrors();

// The browser offers the install prompt once, possibly before the (lazily loaded) dashboard exists.
startInstallPromptCapture();

preloadFirstScreen();

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
