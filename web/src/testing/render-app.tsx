import { render } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { AppRoutes } from "../app/app-routes";
import { AppProviders, createQueryClient } from "../app/providers";

/** The page's current address, as the router sees it (the app follows the browser's location). */
export function currentLocation(): { pathname: string; search: string } {
  return { pathname: window.location.pathname, search: window.location.search };
}

/** Render the whole app at a route, with a fresh query client; returns a user-event instance too. */
export function renderApp(route = "/", { advanceTimers }: { advanceTimers?: (ms: number) => void } = {}) {
  const user = userEvent.setup(advanceTimers ? { advanceTimers } : {});
  const queryClient = createQueryClient();
  // A fresh history entry at the route, without the state a previous test's navigation left.
  window.history.replaceState(null, "", route);
  const result = render(
    <AppProviders queryClient={queryClient}>
      <AppRoutes />
    </AppProviders>,
  );
  return { ...result, user, queryClient };
}
