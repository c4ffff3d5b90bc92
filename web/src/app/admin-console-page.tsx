import { CapcodeAssignDialog } from "../features/admin/agencies/capcode-assign-dialog";
import { AdminConsole } from "../features/admin/console/admin-console";
import { AlertReceivers } from "../features/admin/receivers/alert-receivers";
import { AdminAlertFeed, type AdminFeedSlots } from "../features/alerts/admin-alert-feed";
import { FeedbackTab } from "../features/feedback/admin-feedback-tab";
import { useAdminFeedbackUnread } from "../features/feedback/unread";
import { AdminJobResponses, CardAnswersToggle } from "../features/responding";

/**
 * The admin's feed: jobs that take answers show their counts (read-only), the job view everyone's
 * answers (issues 15 and 26) and which receivers heard the page (issue 33), and a card whose capcode
 * no agency has yet opens the capcode assignment dialog.
 */
const adminFeedSlots: AdminFeedSlots = {
  cardAside: (item, panel) => (
    <CardAnswersToggle
      alertId={item.group.primary_message.id}
      pages={item.group.messages}
      panel={panel}
      readOnly
    />
  ),
  jobExtra: (alert) => (
    <>
      <AdminJobResponses alertId={alert.id} pages={[alert]} />
      <AlertReceivers alertId={alert.id} />
    </>
  ),
  capcodeDialog: (target, onClose) => <CapcodeAssignDialog target={target} onClose={onClose} />,
};

/** The Alerts tab of the admin console (SPEC 2): the alert feed in admin context with the admin's parts. */
export function AlertsTab() {
  return <AdminAlertFeed slots={adminFeedSlots} />;
}

const composedTabs = { alerts: () => <AlertsTab />, feedback: () => <FeedbackTab /> };

/**
 * The admin console with the tabs other features provide: the alerts feed and the feedback
 * conversations, with the unread feedback count on its tab (live from the admin channel). Loaded on
 * first use, so neither the login screen nor the alerts view carry it.
 */
export function AdminConsolePage({ isAdmin }: { isAdmin: boolean }) {
  const feedbackUnread = useAdminFeedbackUnread(isAdmin);
  return <AdminConsole isAdmin={isAdmin} tabs={composedTabs} feedbackUnread={feedbackUnread} />;
}
