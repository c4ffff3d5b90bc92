import { useState } from "react";
import { AppErrorBoundary } from "../ui/load-failure";
import { AppRoutes } from "./app-routes";
import { AppProviders, createQueryClient } from "./providers";

/** The whole web app as mounted in the page. */
export function App() {
  const [queryClient] = useState(createQueryClient);
  return (
    <AppProviders queryClient={queryClient}>
      <AppErrorBoundary>
        {/* wouter's routes follow the browser's address unless a <Router> says otherwise. */}
        <AppRoutes />
      </AppErrorBoundary>
    </AppProviders>
  );
}
