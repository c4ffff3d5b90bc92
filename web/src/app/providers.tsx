import { ThemeProvider } from "@mui/material/styles";
import useMediaQuery from "@mui/material/useMediaQuery";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { type ReactNode, useInsertionEffect } from "react";
import { isApiError } from "../api/errors";
import { themeCssVariables, themeFor } from "./theme";
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

/** Server state and theme (light and dark following the system), whose colours baseline.css reads. */
export function AppProviders({ queryClient, children }: { queryClient: QueryClient; children: ReactNode }) {
  // Read at the first render (no server rendering here), so a phone set to dark never shows a
  // light frame; a change of the system setting re-renders with the other theme.
  const prefersDark = useMediaQuery("(prefers-color-scheme: dark)", { noSsr: true });
  const theme = themeFor(prefersDark ? "dark" : "light");
  // The static stylesheets' colours, on the root element before anything styled paints.
  useInsertionEffect(() => {
    const root = document.documentElement.style;
    for (const [name, value] of Object.entries(themeCssVariables(theme))) root.setProperty(name, value);
  }, [theme]);
  return (
    <QueryClientProvider client={queryClient}>
      <ThemeProvider theme={theme}>{children}</ThemeProvider>
    </QueryClientProvider>
  );
}
