import { useQuery } from "@tanstack/react-query";
import { api } from "../../api/client";
import { firstContentShown } from "../../ui/first-content";

/**
 * The environment the server runs in, as GET /api/health reports it (`environment`); null while
 * unknown or when the server does not say. The server decides it at run time (APP_ENV), so the
 * build cannot know it.
 */
export function useServerEnvironment(): string | null {
  const health = useQuery({
    queryKey: ["server-environment"],
    // Only the development banner needs it: asked for once the first cards are on screen.
    queryFn: async ({ signal }) => {
      await firstContentShown;
      return api.get<{ environment?: unknown }>("/health", { signal });
    },
    staleTime: Number.POSITIVE_INFINITY,
    retry: false,
  });
  const environment = health.data?.environment;
  return typeof environment === "string" ? environment : null;
}
