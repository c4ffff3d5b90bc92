import { storage } from "../api/storage";
import { fetchFirstFeedPageEarly } from "../features/alerts/feed-request";

// Neither the signed-in page nor the signed-out screens are in the first download: a member's feed does
// not carry the login form's inputs (issue 31), nor the login page the feed. No React here: this module
// runs before React has arrived (main.tsx).

/** The signed-in page: the feed and its shell. */
export const loadDashboard = () => import("./dashboard-page");

/** The signed-out screens (login, register, activation, recovery). */
export const loadAuthScreens = () => import("../features/auth/auth-screens");

/**
 * The first screen's code is fetched at once, while React downloads and starts, rather than once the
 * first render asks for it: the signed-in page with a session stored, else the login screen. On the
 * feed's own address its first page is asked for at the same time.
 */
export function preloadFirstScreen(): void {
  const signedIn = storage.getToken() !== null;
  const load = signedIn ? loadDashboard : loadAuthScreens;
  void load().catch(() => undefined);
  if (
    signedIn &&
    window.location.pathname === "/" &&
    !new URLSearchParams(window.location.search).has("debug")
  )
    fetchFirstFeedPageEarly();
}
