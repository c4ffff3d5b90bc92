import Badge from "@mui/material/Badge";
import Box from "@mui/material/Box";
import Container from "@mui/material/Container";
import Tab from "@mui/material/Tab";
import Tabs from "@mui/material/Tabs";
import Typography from "@mui/material/Typography";
import { formatBadgeCount } from "@turnout/domain";
import type { ReactNode } from "react";
import { Link, Redirect, useParams } from "wouter";
import { AgenciesTab } from "../agencies/agencies-tab";
import { DisplaysTab } from "../displays/displays-tab";
import { GroupingTab } from "../grouping/grouping-tab";
import { ReceiversTab } from "../receivers/receivers-tab";
import { SecurityTab } from "../security/security-tab";
import { SmsTab } from "../sms/sms-tab";
import { MonitorAccessDenied, SystemMonitor } from "../system-monitor/system-monitor";
import { usePendingRuleCount } from "../user-alerts";
import { UserAlertsTab } from "../user-alerts/user-alerts-tab";
import { usePendingReviewCount } from "../users/queries";
import { UsersTab } from "../users/users-tab";
import {
  ADMIN_TABS,
  type AdminTab,
  type AdminTabSlug,
  adminTabPath,
  DEFAULT_ADMIN_TAB,
  findAdminTab,
} from "./admin-tabs";

/** The tabs that show another feature's view, composed by the app (web/src/app/admin-console-page.tsx). */
export type ComposedTabs = Record<"alerts" | "feedback", () => ReactNode>;

/** The content of the console's own tabs; with the composed ones, one entry per tab, so none is left empty. */
const TAB_CONTENT: Record<Exclude<AdminTabSlug, keyof ComposedTabs>, () => ReactNode> = {
  system: () => <SystemMonitor />,
  receivers: () => <ReceiversTab />,
  users: () => <UsersTab />,
  agencies: () => <AgenciesTab />,
  "user-alerts": () => <UserAlertsTab />,
  sms: () => <SmsTab />,
  "message-grouping": () => <GroupingTab />,
  security: () => <SecurityTab />,
  displays: () => <DisplaysTab />,
};

/** An orange count beside a tab's label ('9+' above 9); nothing at 0. */
function TabLabel({ label, count }: { label: string; count: string }) {
  return (
    <Badge
      color="warning"
      badgeContent={count}
      invisible={count === ""}
      sx={{ "& .MuiBadge-badge": { right: -12 } }}
      slotProps={{ badge: { "aria-hidden": true } }}
    >
      {label}
    </Badge>
  );
}

/**
 * The admin console (SPEC 2): the nine tabs in their order, each at its own address
 * (/admin/{tab}), the System Monitor first and by default. Users carries the count of accounts
 * awaiting review; User Alerts the pending-rules badge; Feedback the admins' unread feedback count,
 * these two live from the admin channel.
 * A signed-in user who is not an admin gets the SPEC 6 refusal and nothing is asked of the server.
 */
export function AdminConsole({
  isAdmin,
  tabs,
  feedbackUnread,
}: {
  isAdmin: boolean;
  tabs: ComposedTabs;
  /** The admins' unread feedback count, for the Feedback tab's badge. */
  feedbackUnread: number;
}) {
  const { tab: slug } = useParams<{ tab?: string }>();
  const tab = findAdminTab(slug);
  const pending = formatBadgeCount(usePendingRuleCount(isAdmin));
  const unread = formatBadgeCount(feedbackUnread);
  const awaitingReview = formatBadgeCount(usePendingReviewCount(isAdmin) ?? 0);

  if (!isAdmin) {
    return (
      <Container component="main" maxWidth="md" sx={{ py: 3 }}>
        <Typography variant="h5" component="h1" gutterBottom>
          Admin Console
        </Typography>
        <MonitorAccessDenied />
      </Container>
    );
  }
  if (!tab) return <Redirect to={adminTabPath(DEFAULT_ADMIN_TAB.slug)} replace />;

  const counts: Record<string, { count: string; meaning: string }> = {
    users: { count: awaitingReview, meaning: "awaiting review" },
    "user-alerts": { count: pending, meaning: "pending" },
    feedback: { count: unread, meaning: "unread" },
  };
  const countOf = (candidate: AdminTab) => counts[candidate.slug]?.count ?? "";
  const accessibleName = (candidate: AdminTab) => {
    const count = countOf(candidate);
    if (!count) return candidate.label;
    return `${candidate.label}, ${count} ${counts[candidate.slug]?.meaning ?? ""}`;
  };

  return (
    <Container component="main" maxWidth="xl" sx={{ py: 2 }}>
      <Typography variant="h5" component="h1" sx={{ mb: 1 }}>
        Admin Console
      </Typography>
      <Box sx={{ borderBottom: 1, borderColor: "divider", mb: 2 }}>
        <Tabs value={tab.slug} variant="scrollable" scrollButtons="auto" aria-label="Admin console sections">
          {ADMIN_TABS.map((candidate) => (
            <Tab
              key={candidate.slug}
              value={candidate.slug}
              component={Link}
              to={adminTabPath(candidate.slug)}
              id={`admin-tab-${candidate.slug}`}
              aria-controls="admin-tab-panel"
              aria-label={accessibleName(candidate)}
              label={<TabLabel label={candidate.label} count={countOf(candidate)} />}
              sx={{ pr: countOf(candidate) ? 3.5 : undefined }}
            />
          ))}
        </Tabs>
      </Box>
      <Box role="tabpanel" id="admin-tab-panel" aria-labelledby={`admin-tab-${tab.slug}`}>
        {{ ...TAB_CONTENT, ...tabs }[tab.slug]()}
      </Box>
    </Container>
  );
}
