import { render } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { MemoryRouter, useLocation } from "react-router";
import { AppRoutes } from "../app/app-routes";
import { AppProviders, createQueryClient } from "../app/providers";

/** The router's current location, readable by tests. */
export const currentLocation = { pathname: "", search: "" };

function LocationProbe() {
  const location = useLocation();
  currentLocation.pathname = location.pathname;
  currentLocation.search = location.search;
  return null;
}

/** Render the whole app at a route, with a fresh query client; returns a user-event instance too. */
export function renderApp(route = "/", { advanceTimers }: { advanceTimers?: (ms: number) => void } = {}) {
  const user = userEvent.setup(advanceTimers ? { advanceTimers } : {});
  const queryClient = createQueryClient();
  const result = render(
    <AppProviders queryClient={queryClient}>
      <MemoryRouter initialEntries={[route]}>
        <LocationProbe />
        <AppRoutes />
      </MemoryRouter>
    </AppProviders>,
  );
  return { ...result, user, queryClient };
}
