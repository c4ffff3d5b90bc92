import { useState } from "react";
import { BrowserRouter } from "react-router";
import { AppRoutes } from "./app-routes";
import { AppProviders, createQueryClient } from "./providers";

/** The whole web app as mounted in the page. */
export function App() {
  const [queryClient] = useState(createQueryClient);
  return (
    <AppProviders queryClient={queryClient}>
      <BrowserRouter>
        <AppRoutes />
      </BrowserRouter>
    </AppProviders>
  );
}
