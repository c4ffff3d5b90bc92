/** Where the admin console lives; each tab has its own address under it, so reload and back work. */
export const ADMIN_BASE_PATH = "/admin";

/**
 * The nine tabs of SPEC 2 in their order, with Receivers (issue 33) after the monitor and Displays
 * (issue 34) last; the first is the default.
 */
export const ADMIN_TABS = [
  { slug: "system", label: "System Monitor" },
  { slug: "receivers", label: "Receivers" },
  { slug: "users", label: "Users" },
  { slug: "alerts", label: "Alerts" },
  { slug: "agencies", label: "Agencies" },
  { slug: "user-alerts", label: "User Alerts" },
  { slug: "sms", label: "SMS" },
  { slug: "message-grouping", label: "Message Grouping" },
  { slug: "feedback", label: "Feedback" },
  { slug: "security", label: "Security" },
  { slug: "displays", label: "Displays" },
] as const satisfies readonly { slug: string; label: string }[];

/** One tab of the admin console: its address segment and its label. */
export type AdminTab = (typeof ADMIN_TABS)[number];

/** A tab's address segment; the console's content table must have one entry for each. */
export type AdminTabSlug = AdminTab["slug"];

/** The tab shown at /admin and for an address no tab has. */
export const DEFAULT_ADMIN_TAB: AdminTab = ADMIN_TABS[0];

/** The address of a tab. */
export function adminTabPath(slug: string): string {
  return `${ADMIN_BASE_PATH}/${slug}`;
}

/** The tab an address segment names, or undefined. */
export function findAdminTab(slug: string | undefined): AdminTab | undefined {
  return ADMIN_TABS.find((tab) => tab.slug === slug);
}
