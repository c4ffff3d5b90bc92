import { useQueryClient } from "@tanstack/react-query";
import { canOpenAdminConsole } from "@turnout/domain";
import { Suspense, useCallback, useEffect, useMemo, useState } from "react";
import { Redirect, useLocation, useSearchParams } from "wouter";
import { alertCacheKeys } from "../api/alerts";
import type { SessionUser } from "../api/types";
import { ADMIN_BASE_PATH, adminTabPath, DEFAULT_ADMIN_TAB, prefetchSystemDashboard } from "../features/admin";
import { AlarmMutedButton, AlarmNotices, useAlarm } from "../features/alarm";
import type { FeedSlots } from "../features/alerts";
import { AlertFeed } from "../features/alerts/alert-feed";
import { useAuth } from "../features/auth/auth-provider";
import { DashboardHeader } from "../features/dashboard/dashboard-header";
import { useServerEnvironment } from "../features/dashboard/use-server-environment";
import type { UserMenuSlots } from "../features/dashboard/user-menu";
import { useFeedbackUnread } from "../features/feedback";
import { InstallBanner } from "../features/install";
import { usePushMessages } from "../features/push";
import { CardAnswersToggle, CardResponses, RespondingProvider } from "../features/responding";
import { adminPanelSettingsPath, arrowBackPath, Icon, mapPath, viewListPath } from "../ui/kit/icons";
import { Button, IconButton } from "../ui/kit/kit";
import { LazyMount } from "../ui/lazy-mount";
import { lazyWithTheme } from "../ui/lazy-with-theme";
import { LoadingScreen } from "../ui/loading-screen";

// The menu's dialogs load when first opened: none is on the feed's first paint (issue 31). They, the
// job's responses, the console and the map are built with MUI, so each comes with MUI's theme.
const MyAlertsDialog = lazyWithTheme(() =>
  import("../features/rules/my-alerts-dialog").then((module) => module.MyAlertsDialog),
);
// Who is responding to a job shows in the job's dialog, itself loaded when a job is opened.
const JobResponses = lazyWithTheme(() =>
  import("../features/responding/job-responses").then((module) => module.JobResponses),
);
const MyFeedbackDialog = lazyWithTheme(() =>
  import("../features/feedback/my-feedback-dialog").then((module) => module.MyFeedbackDialog),
);
const PushDialog = lazyWithTheme(() =>
  import("../features/push/push-dialog").then((module) => module.PushDialog),
);
const MyDevicesDialog = lazyWithTheme(() =>
  import("../features/devices/my-devices-dialog").then((module) => module.MyDevicesDialog),
);
const MyUnitsDialog = lazyWithTheme(() =>
  import("../features/units/my-units-dialog").then((module) => module.MyUnitsDialog),
);
const AlarmSettingsDialog = lazyWithTheme(() =>
  import("../features/alarm/alarm-settings-dialog").then((module) => module.AlarmSettingsDialog),
);
/** The admin console, loaded on first use so neither the login screen nor the alerts view carry it. */
const AdminConsole = lazyWithTheme(() =>
  import("./admin-console-page").then((module) => module.AdminConsolePage),
);
/** The map of jobs (issue 34), at /map: Leaflet loads only when it is opened. */
const MapView = lazyWithTheme(() => import("./map-page").then((module) => module.default));
export const MAP_PATH = "/map";

function isConsolePath(pathname: string): boolean {
  return pathname === ADMIN_BASE_PATH || pathname.startsWith(`${ADMIN_BASE_PATH}/`);
}

/**
 * Who is responding (issues 15 and 26), on each card of a job that takes answers (a toggle in its
 * header opening the answer row) and in the job popup.
 */
const feedSlots: FeedSlots = {
  cardAside: (item, panel) => (
    <CardAnswersToggle alertId={item.group.primary_message.id} pages={item.group.messages} panel={panel} />
  ),
  cardFooter: (item, panel) => (
    <CardResponses alertId={item.group.primary_message.id} pages={item.group.messages} panel={panel} />
  ),
  jobExtra: (alert) => (
    <Suspense fallback={null}>
      <JobResponses alertId={alert.id} pages={[alert]} />
    </Suspense>
  ),
};

/**
 * The dashboard: the alerts view under the dashboard header, with the install banner and the My Alerts
 * and My Feedback dialogs composed in, or at /admin/{tab} the admin console under the same header
 * (admins on non-mobile devices; SPEC 2). The feed and its live channel stay behind the console, which
 * joins the admin room while it is open. Loaded on demand, so the login screen stays small.
 */
export function Dashboard({ user, onSignOut }: { user: SessionUser; onSignOut: () => Promise<void> }) {
  const isDevelopment = useServerEnvironment() === "development";
  const [myAlertsOpen, setMyAlertsOpen] = useState(false);
  const [feedbackOpen, setFeedbackOpen] = useState(false);
  const [pushOpen, setPushOpen] = useState(false);
  const [unitsOpen, setUnitsOpen] = useState(false);
  const [devicesOpen, setDevicesOpen] = useState(false);
  const [alarmOpen, setAlarmOpen] = useState(false);
  const alarm = useAlarm(user.id);
  usePushMessages();
  // Non-admins poll their own unread count; admins follow the console's Feedback tab badge (SPEC 6).
  const feedbackUnread = useFeedbackUnread(!user.is_admin);
  const [pathname, navigate] = useLocation();
  const queryClient = useQueryClient();
  const mayOpenConsole = canOpenAdminConsole(user, navigator.userAgent);
  const inConsole = isConsolePath(pathname);
  const inMap = pathname === MAP_PATH;
  const [params] = useSearchParams();
  const { agency } = useAuth();
  // An admin with no agency of their own has an empty feed: on a desktop they land in the console
  // instead (issue 26), once, when the page opens at / without a job to show.
  const [landInConsole, setLandInConsole] = useState(
    () => mayOpenConsole && agency === null && pathname === "/" && !params.has("job"),
  );
  useEffect(() => {
    if (landInConsole) setLandInConsole(false);
  }, [landInConsole]);

  // SPEC 6: the system dashboard is fetched as soon as an admin is in, so the monitor opens filled;
  // if that fails (offline, say) the monitor's own loads try again.
  useEffect(() => {
    if (mayOpenConsole) prefetchSystemDashboard(queryClient).catch(() => undefined);
  }, [mayOpenConsole, queryClient]);

  // The header's parts are the same elements from one render to the next unless what they show
  // changes: the page renders several times while the feed opens, and React skips an element it
  // rendered before (issue 31).
  const handleBackToAlerts = useCallback(() => navigate("/"), [navigate]);
  // SPEC 2's admin toggle in the header: to the console from the alerts, and back.
  const adminToggle = useMemo(
    () =>
      inConsole ? (
        <Button color="inherit" startIcon={<Icon path={arrowBackPath} />} onClick={handleBackToAlerts}>
          Back to Alerts
        </Button>
      ) : mayOpenConsole ? (
        <Button
          color="inherit"
          startIcon={<Icon path={adminPanelSettingsPath} />}
          onClick={() => navigate(adminTabPath(DEFAULT_ADMIN_TAB.slug))}
        >
          Admin
        </Button>
      ) : null,
    [inConsole, mayOpenConsole, navigate, handleBackToAlerts],
  );
  // The view switch beside the feed (issue 34): the map of jobs, and back to the list.
  const mapToggle = useMemo(
    () =>
      inConsole ? null : (
        <IconButton
          color="inherit"
          title={inMap ? "List of jobs" : "Map of jobs"}
          aria-label={inMap ? "Show the list of jobs" : "Show the map of jobs"}
          onClick={() => navigate(inMap ? "/" : MAP_PATH)}
        >
          <Icon path={inMap ? viewListPath : mapPath} />
        </IconButton>
      ),
    [inConsole, inMap, navigate],
  );
  const menuSlots = useMemo<UserMenuSlots>(
    () => ({
      onOpenMyAlerts: () => setMyAlertsOpen(true),
      onOpenMyUnits: () => setUnitsOpen(true),
      onOpenMyDevices: () => setDevicesOpen(true),
      onOpenPush: () => setPushOpen(true),
      onOpenAlarm: () => setAlarmOpen(true),
      // An admin at a desktop answers feedback in the console; anyone else sends their own.
      onOpenFeedback: () => (mayOpenConsole ? navigate(adminTabPath("feedback")) : setFeedbackOpen(true)),
      feedbackUnread,
      onOpenAdmin: () => navigate(adminTabPath(DEFAULT_ADMIN_TAB.slug)),
      onBackToAlerts: inConsole ? handleBackToAlerts : undefined,
    }),
    [mayOpenConsole, navigate, feedbackUnread, inConsole, handleBackToAlerts],
  );

  // A phone always gets the alerts view, admin or not (SPEC 2).
  if (inConsole && user.is_admin && !mayOpenConsole) return <Redirect to="/" replace />;
  if (landInConsole) return <Redirect to={adminTabPath(DEFAULT_ADMIN_TAB.slug)} replace />;

  return (
    <RespondingProvider userId={user.id}>
      <AlertFeed
        user={user}
        slots={feedSlots}
        onSignOut={onSignOut}
        joinAdmin={inConsole && mayOpenConsole}
        onAlertsAdmitted={alarm.handleArrivals}
        view={
          inConsole ? (
            <Suspense fallback={<LoadingScreen label="Loading admin console" />}>
              <AdminConsole isAdmin={user.is_admin} />
            </Suspense>
          ) : inMap ? (
            <Suspense fallback={<LoadingScreen label="Loading the map" />}>
              <MapView jobExtra={feedSlots.jobExtra} />
            </Suspense>
          ) : undefined
        }
        renderHeader={(feed) => (
          <>
            <DashboardHeader
              user={user}
              connection={feed.connection}
              actions={
                <>
                  <AlarmMutedButton alarm={alarm} onOpen={() => setAlarmOpen(true)} />
                  {inConsole || inMap ? null : feed.actions}
                  {mapToggle}
                  {adminToggle}
                </>
              }
              onSignOut={feed.signOut}
              isDevelopment={isDevelopment}
              slots={menuSlots}
              dialogs={
                <>
                  <LazyMount when={myAlertsOpen}>
                    <MyAlertsDialog open={myAlertsOpen} onClose={() => setMyAlertsOpen(false)} />
                  </LazyMount>
                  <LazyMount when={feedbackOpen}>
                    <MyFeedbackDialog open={feedbackOpen} onClose={() => setFeedbackOpen(false)} />
                  </LazyMount>
                  <LazyMount when={pushOpen}>
                    <PushDialog open={pushOpen} onClose={() => setPushOpen(false)} />
                  </LazyMount>
                  <LazyMount when={devicesOpen}>
                    <MyDevicesDialog open={devicesOpen} onClose={() => setDevicesOpen(false)} />
                  </LazyMount>
                  <LazyMount when={unitsOpen}>
                    <MyUnitsDialog
                      open={unitsOpen}
                      onClose={() => setUnitsOpen(false)}
                      // The feed's view chips and first page follow the new units.
                      onSaved={() => void queryClient.invalidateQueries({ queryKey: alertCacheKeys.all })}
                    />
                  </LazyMount>
                  <LazyMount when={alarmOpen}>
                    <AlarmSettingsDialog open={alarmOpen} onClose={() => setAlarmOpen(false)} alarm={alarm} />
                  </LazyMount>
                </>
              }
            />
            <InstallBanner user={user} />
            <AlarmNotices alarm={alarm} />
          </>
        )}
      />
    </RespondingProvider>
  );
}
