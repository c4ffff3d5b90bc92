import { lazy } from "react";

export { ADMIN_BASE_PATH, adminTabPath, DEFAULT_ADMIN_TAB } from "./console/admin-tabs";
export { prefetchSystemDashboard } from "./system-monitor/queries";

/** The admin console, loaded on first use so neither the login screen nor the alerts view carry it. */
export const AdminConsole = lazy(() =>
  import("./console/admin-console").then((module) => ({ default: module.AdminConsole })),
);
