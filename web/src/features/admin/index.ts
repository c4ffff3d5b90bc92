import type { QueryClient } from "@tanstack/react-query";
import { lazy } from "react";

export { ADMIN_BASE_PATH, adminTabPath, DEFAULT_ADMIN_TAB } from "./console/admin-tabs";

/** The admin console, loaded on first use so neither the login screen nor the alerts view carry it. */
export const AdminConsole = lazy(() =>
  import("./console/admin-console").then((module) => ({ default: module.AdminConsole })),
);

/**
 * Loads the system dashboard into the cache after an admin signs in (SPEC 6), so the monitor opens
 * with figures. Its code loads here too, so only admins download it.
 */
export async function prefetchSystemDashboard(queryClient: QueryClient): Promise<void> {
  const { systemDashboardQueryOptions } = await import("./system-monitor/queries");
  await queryClient.prefetchQuery(systemDashboardQueryOptions());
}
