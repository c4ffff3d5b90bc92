import { lazy, Suspense } from "react";
import { Redirect, Route, Switch, useLocation, useParams, useSearchParams } from "wouter";
import { AuthProvider, useAuth } from "../features/auth/auth-provider";
import { lazyWithTheme } from "../ui/lazy-with-theme";
import { LoadingScreen } from "../ui/loading-screen";
import { loadAuthScreens, loadDashboard } from "./first-screen";

const Dashboard = lazy(() => loadDashboard().then((module) => ({ default: module.Dashboard })));
// The sign-in screen is plain elements; the other signed-out screens bring MUI's theme with them.
const AuthScreens = lazy(() => loadAuthScreens().then((module) => ({ default: module.AuthScreens })));

const KeyboardDebugPage = lazyWithTheme(() =>
  import("../features/debug/keyboard-debug-page").then((module) => module.KeyboardDebugPage),
);
// The station turnout board (issue 34): a screen signed in as a display, not as a member, with a theme
// of its own.
const BoardPage = lazy(() => import("../features/board/board-page"));
const PwaDebugPage = lazyWithTheme(() =>
  import("../features/debug/pwa-debug-page").then((module) => module.PwaDebugPage),
);

/** A job id in the short path must be digits only (SPEC 5). */
const JOB_ID_PATTERN = /^\d+$/;

/** /j/{digits} becomes /?job={digits} without a new history entry; anything else goes home. */
function ShortJobRedirect() {
  const { jobId = "" } = useParams<{ jobId: string }>();
  if (!JOB_ID_PATTERN.test(jobId)) return <Redirect to="/" replace />;
  return <Redirect to={`/?job=${jobId}`} replace />;
}

function SignedInOrAuthScreens() {
  const auth = useAuth();
  if (auth.isLoading) return <LoadingScreen />;
  if (auth.isAuthenticated && auth.user) {
    return (
      <Suspense fallback={<LoadingScreen />}>
        <Dashboard user={auth.user} onSignOut={auth.signOut} />
      </Suspense>
    );
  }
  return (
    <Suspense fallback={<LoadingScreen />}>
      <AuthScreens />
    </Suspense>
  );
}

/** `/`: debug pages by query parameter, else login, register, activation or the signed-in page. */
function RootPage() {
  const [params] = useSearchParams();
  const [, navigate] = useLocation();
  const handleBackToLogin = () => navigate("/login");
  const debug = params.get("debug");
  if (debug === "keyboard") {
    return (
      <Suspense fallback={<LoadingScreen label="Loading debug page" />}>
        <KeyboardDebugPage onBackToLogin={handleBackToLogin} />
      </Suspense>
    );
  }
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
  if (auth.isAuthenticated) return <Redirect to="/" replace />;
  return (
    <Suspense fallback={<LoadingScreen />}>
      <AuthScreens />
    </Suspense>
  );
}

/** The routes of SPEC 2, inside the auth state they depend on. Needs a router around it. */
export function AppRoutes() {
  return (
    <AuthProvider>
      <Switch>
        {/* The Switch renders one Route in the same place whichever matches: the admin console's tabs
            (/admin/system, /admin/users...) and the map of jobs (issue 34) are the same page as `/`, so
            the dashboard, its feed and its live channel stay mounted when an admin goes in or out. */}
        <Route path="/">
          <RootPage />
        </Route>
        <Route path="/admin/:tab?">
          <RootPage />
        </Route>
        <Route path="/map">
          <RootPage />
        </Route>
        <Route path="/login">
          <LoginPage />
        </Route>
        <Route path="/board">
          <Suspense fallback={<LoadingScreen label="Loading the station board" />}>
            <BoardPage />
          </Suspense>
        </Route>
        <Route path="/j/:jobId">
          <ShortJobRedirect />
        </Route>
        <Route>
          <Redirect to="/" replace />
        </Route>
      </Switch>
    </AuthProvider>
  );
}
