import { lazy, Suspense, useState } from "react";
import { Navigate, Route, Routes, useNavigate, useParams, useSearchParams } from "react-router";
import type { SessionUser } from "../api/types";
import { AlertFeed } from "../features/alerts/alert-feed";
import { AuthProvider, useAuth } from "../features/auth/auth-provider";
import { AuthScreens } from "../features/auth/auth-screens";
import { DashboardHeader } from "../features/dashboard/dashboard-header";
import { useServerEnvironment } from "../features/dashboard/use-server-environment";
import { KeyboardDebugPage } from "../features/debug/keyboard-debug-page";
import { MyAlertsDialog } from "../features/rules/my-alerts-dialog";
import { LoadingScreen } from "../ui/loading-screen";

const PwaDebugPage = lazy(() =>
  import("../features/debug/pwa-debug-page").then((module) => ({ default: module.PwaDebugPage })),
);

/** A job id in the short path must be digits only (SPEC 5). */
const JOB_ID_PATTERN = /^\d+$/;

/** /j/{digits} becomes /?job={digits} without a new history entry; anything else goes home. */
function ShortJobRedirect() {
  const { jobId = "" } = useParams();
  if (!JOB_ID_PATTERN.test(jobId)) return <Navigate to="/" replace />;
  return <Navigate to={`/?job=${jobId}`} replace />;
}

/**
 * The dashboard: the alerts view under the dashboard header. Every user, and every mobile device,
 * gets this view; the admin console (admins on non-mobile devices) arrives with its own issue.
 */
function Dashboard({ user, onSignOut }: { user: SessionUser; onSignOut: () => Promise<void> }) {
  const isDevelopment = useServerEnvironment() === "development";
  const [myAlertsOpen, setMyAlertsOpen] = useState(false);
  return (
    <AlertFeed
      user={user}
      onSignOut={onSignOut}
      renderHeader={(feed) => (
        <DashboardHeader
          user={user}
          connection={feed.connection}
          actions={feed.actions}
          onSignOut={feed.signOut}
          isDevelopment={isDevelopment}
          slots={{ onOpenMyAlerts: () => setMyAlertsOpen(true) }}
          dialogs={<MyAlertsDialog open={myAlertsOpen} onClose={() => setMyAlertsOpen(false)} />}
        />
      )}
    />
  );
}

function SignedInOrAuthScreens() {
  const auth = useAuth();
  if (auth.isLoading) return <LoadingScreen />;
  if (auth.isAuthenticated && auth.user) return <Dashboard user={auth.user} onSignOut={auth.signOut} />;
  return <AuthScreens />;
}

/** `/`: debug pages by query parameter, else login, register, activation or the signed-in page. */
function RootPage() {
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const handleBackToLogin = () => navigate("/login");
  const debug = params.get("debug");
  if (debug === "keyboard") return <KeyboardDebugPage onBackToLogin={handleBackToLogin} />;
  if (debug === "pwa") {
    return (
      <Suspense fallback={<LoadingScreen label="Loading debug page" />}>
        <PwaDebugPage onBackToLogin={handleBackToLogin} />
      </Suspense>
    );
  }
  return <SignedInOrAuthScreens />;
}

/** `/login`: where a session that ended lands; a signed-in visitor goes home instead. */
function LoginPage() {
  const auth = useAuth();
  if (auth.isLoading) return <LoadingScreen />;
  if (auth.isAuthenticated) return <Navigate to="/" replace />;
  return <AuthScreens />;
}

/** The routes of SPEC 2, inside the auth state they depend on. Needs a router around it. */
export function AppRoutes() {
  return (
    <AuthProvider>
      <Routes>
        <Route path="/" element={<RootPage />} />
        <Route path="/login" element={<LoginPage />} />
        <Route path="/j/:jobId" element={<ShortJobRedirect />} />
        <Route path="*" element={<Navigate to="/" replace />} />
      </Routes>
    </AuthProvider>
  );
}
