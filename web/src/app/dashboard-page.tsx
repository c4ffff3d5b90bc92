import { useState } from "react";
import type { SessionUser } from "../api/types";
import { AlertFeed } from "../features/alerts/alert-feed";
import { DashboardHeader } from "../features/dashboard/dashboard-header";
import { useServerEnvironment } from "../features/dashboard/use-server-environment";
import { InstallBanner } from "../features/install";
import { MyAlertsDialog } from "../features/rules/my-alerts-dialog";

/**
 * The dashboard: the alerts view under the dashboard header, with the install banner and the My Alerts
 * dialog composed in. Every user, and every mobile device, gets this view; the admin console (admins on
 * non-mobile devices) arrives with its own issue. Loaded on demand, so the login screen stays small.
 */
export function Dashboard({ user, onSignOut }: { user: SessionUser; onSignOut: () => Promise<void> }) {
  const isDevelopment = useServerEnvironment() === "development";
  const [myAlertsOpen, setMyAlertsOpen] = useState(false);
  return (
    <AlertFeed
      user={user}
      onSignOut={onSignOut}
      renderHeader={(feed) => (
        <>
          <DashboardHeader
            user={user}
            connection={feed.connection}
            actions={feed.actions}
            onSignOut={feed.signOut}
            isDevelopment={isDevelopment}
            slots={{ onOpenMyAlerts: () => setMyAlertsOpen(true) }}
            dialogs={<MyAlertsDialog open={myAlertsOpen} onClose={() => setMyAlertsOpen(false)} />}
          />
          <InstallBanner user={user} />
        </>
      )}
    />
  );
}
