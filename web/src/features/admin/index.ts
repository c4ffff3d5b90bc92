import type { QueryClient } from "@tanstack/react-query";

export { ADMIN_BASE_PATH, adminTabPath, DEFAULT_ADMIN_TAB } from "./console/admin-tabs";

/**
 * Loads the system dashboard into the cache after an admin signs in (SPEC 6), so the monitor opens
 * with figures. Its code loads here too, so only admins download it.
 */
export async function prefetchSystemDashboard(queryClient: QueryClient): Promise<void> {
  const { systemDashboardQueryOptions } = await import("./system-monitor/queries");
  await queryClient.prefetchQuery(systemDashboardQueryOptions());
}
