import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { isApiError } from "../api/errors";
import "./baseline.css";

/** One query client per app: no retry on 4xx answers (they will not change by asking again). */
export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        retry: (failureCount, error) => {
          if (isApiError(error) && error.status >= 400 && error.status < 500) return false;
          return failureCount < 2;
        },
        refetchOnWindowFocus: false,
      },
      mutations: { retry: false },
    },
  });
}

/**
 * Server state. The colours (light and dark following the system) are baseline.css's custom properties;
 * MUI's theme comes with the screens built with MUI (`lazyWithTheme`, app/mui-theme.tsx), so none of MUI
 * is on the signed-in feed's path, nor on the sign-in screen's (issue 31).
 */
export function AppProviders({ queryClient, children }: { queryClient: QueryClient; children: ReactNode }) {
  return <QueryClientProvider client={queryClient}>{children}</QueryClientProvider>;
}
