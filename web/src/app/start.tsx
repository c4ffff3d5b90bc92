import { StrictMode, startTransition } from "react";
import { createRoot } from "react-dom/client";
import { reportUncaughtErrors } from "../ui/load-failure";
import { App } from "./app";
import { registerServiceWorker } from "./register-service-worker";

/** React and the app, on the page's #root (main.tsx loads this once the first screen's code is asked for). */
export function startApp(container: HTMLElement): void {
  reportUncaughtErrors();
  // A transition lets React yield while it renders the first screen, so the page stays responsive.
  startTransition(() => {
    createRoot(container).render(
      <StrictMode>
        <App />
      </StrictMode>,
    );
  });
  registerServiceWorker();
}
