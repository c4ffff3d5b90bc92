// First: zod must not probe eval under the page's Content-Security-Policy.
import "./app/zod-without-eval";
import { preloadFirstScreen } from "./app/first-screen";
import { startInstallPromptCapture } from "./features/install/install-prompt";

// The browser offers the install prompt once, possibly before the (lazily loaded) dashboard exists.
startInstallPromptCapture();

const container = document.getElementById("root");
if (!container) throw new Error("index.html has no #root element");

// This module holds no React: it runs as soon as it arrives, and asks for the first screen's code (and
// on the feed, its first page) while React itself downloads (index.html preloads it: the build's
// `preloadStart` in vite.config.ts), one round trip sooner than once React had arrived (issue 31).
preloadFirstScreen();

import("./app/start")
  .then(({ startApp }) => startApp(container))
  .catch(() => {
    // Offline before the app was ever kept, or a release's files gone: say so rather than a splash forever.
    const notice = document.createElement("p");
    notice.setAttribute("role", "alert");
    notice.className = "splash";
    notice.textContent = "Turnout could not load. Check the connection, then reload the page.";
    container.replaceChildren(notice);
  });
