/** Where the admin console lives; each tab has its own address under it, so reload and back work. */
export const ADMIN_BASE_PATH = "/admin";

/** One tab of the admin console: its address segment, its label, and what it will hold. */
export interface AdminTab {
  slug: string;
  label: string;
  /** What the tab is for, said on its placeholder until it is built. */
  purpose: string;
}

/** The nine tabs of SPEC 2, in their order; the first is the default. */
export const ADMIN_TABS: readonly AdminTab[] = [
  {
    slug: "system",
    label: "System Monitor",
    purpose: "Health, server, database, cache store, sessions, messages, SMS service and system logs.",
  },
  {
    slug: "users",
    label: "Users",
    purpose: "Every account (up to 1000): create, edit, activate, session limits, agencies, device sessions.",
  },
  {
    slug: "alerts",
    label: "Alerts",
    purpose: "The alert list in admin context, with search, filters and assigning capcodes to agencies.",
  },
  { slug: "agencies", label: "Agencies", purpose: "Agencies, their logos and their capcodes." },
  {
    slug: "user-alerts",
    label: "User Alerts",
    purpose: "Members' keyword SMS alert rules waiting for review: approve or reject them.",
  },
  {
    slug: "sms",
    label: "SMS",
    purpose: "The SMS queue: filter by status, retry failed messages, release stuck ones.",
  },
  {
    slug: "message-grouping",
    label: "Message Grouping",
    purpose: "How messages of one job are grouped together.",
  },
  {
    slug: "feedback",
    label: "Feedback",
    purpose: "Members' feedback conversations, with their photos and videos.",
  },
  {
    slug: "security",
    label: "Security",
    purpose: "Sign-in limits, lockouts, security events and auto-activation of new accounts.",
  },
  {
    slug: "displays",
    label: "Displays",
    purpose: "Station turnout boards: screens that show one unit's jobs and who is responding.",
  },
];

/** The tab shown at /admin and for an address no tab has. */
export const DEFAULT_ADMIN_TAB = ADMIN_TABS[0]!;

/** The address of a tab. */
export function adminTabPath(slug: string): string {
  return `${ADMIN_BASE_PATH}/${slug}`;
}

/** The tab an address segment names, or undefined. */
export function findAdminTab(slug: string | undefined): AdminTab | undefined {
  return ADMIN_TABS.find((tab) => tab.slug === slug);
}
