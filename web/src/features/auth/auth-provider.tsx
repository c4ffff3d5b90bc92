import { useQueryClient } from "@tanstack/react-query";
import {
  isStoredSessionValid,
  MESSAGES,
  SESSION_CHECK_INTERVAL_MS,
  STORAGE_KEYS,
  secondsUntilExpiry,
  TOKEN_MIN_REMAINING_SECONDS,
} from "@turnout/domain";
import {
  createContext,
  type ReactNode,
  startTransition,
  useCallback,
  useContext,
  useEffect,
  useMemo,
  useRef,
  useState,
} from "react";
import { useLocation } from "wouter";
import { emitSessionNotice, onSessionNotice, type SessionNotice } from "../../api/session-events";
import { type StoredSession, storage } from "../../api/storage";
import type { SessionAgency, SessionUser } from "../../api/types";
import { LazyMount } from "../../ui/lazy-mount";
import { lazyWithTheme } from "../../ui/lazy-with-theme";
import { pageNavigation } from "../../ui/page-navigation";
import { authApi, type SignInData } from "./auth-api";

// Both dialogs load when first shown: MUI's Dialog (its modal, focus trap and transitions) is on no
// other screen's first paint (issue 31).
const SessionEndedDialog = lazyWithTheme(() =>
  import("./session-ended-dialog").then((module) => module.SessionEndedDialog),
);
const NotAuthorizedDialog = lazyWithTheme(() =>
  import("./not-authorized-dialog").then((module) => module.NotAuthorizedDialog),
);

type AuthStatus = "loading" | "signed-out" | "signed-in";

/** Auth state of SPEC 3 (user, agency, token, isAuthenticated, isLoading) plus what changes it. */
export interface AuthContextValue {
  user: SessionUser | null;
  agency: SessionAgency | null;
  token: string | null;
  isAuthenticated: boolean;
  isLoading: boolean;
  /** Store the login result and reload the page (SPEC 4). */
  completeSignIn: (data: SignInData) => void;
  /** Best-effort server logout, then the local session is cleared and the layout reset. */
  signOut: () => Promise<void>;
}

interface AuthState {
  status: AuthStatus;
  user: SessionUser | null;
  agency: SessionAgency | null;
  token: string | null;
}

const SIGNED_OUT: AuthState = { status: "signed-out", user: null, agency: null, token: null };
/** The server logout is best effort: the user is not kept waiting longer than this for it. */
const LOGOUT_WAIT_MS = 3_000;

const AuthContext = createContext<AuthContextValue | null>(null);

/** A missing agency key is `undefined` to the domain rule; a stored null (no agency) counts as stored. */
function isValid(stored: StoredSession, nowMs: number): boolean {
  return isStoredSessionValid(
    { token: stored.token, user: stored.user, agency: stored.agencyStored ? stored.agency : undefined },
    nowMs,
  );
}

/** Why a stored session is not usable: it ran out (expired) or its parts are missing or malformed. */
function endedNoticeFor(stored: StoredSession, nowMs: number): SessionNotice {
  const remaining = stored.token ? secondsUntilExpiry(stored.token, nowMs) : null;
  if (remaining !== null && remaining <= TOKEN_MIN_REMAINING_SECONDS) {
    return { kind: "expired", message: MESSAGES.SESSION_EXPIRED };
  }
  return { kind: "expired", message: MESSAGES.SESSION_INVALID };
}

function resetLayout(): void {
  document.body.style.removeProperty("overflow");
  document.body.style.removeProperty("padding-right");
  window.scrollTo?.(0, 0);
}

/**
 * Owns the auth state machine (SPEC 4): startup from storage, periodic and on-visible session
 * checks, the Session Ended dialog (once per page) and the general not-authorized dialog.
 */
export function AuthProvider({ children }: { children: ReactNode }) {
  const [, navigate] = useLocation();
  const queryClient = useQueryClient();
  const [state, setState] = useState<AuthState>({ ...SIGNED_OUT, status: "loading" });
  const [endedNotice, setEndedNotice] = useState<SessionNotice | null>(null);
  const [forbiddenMessage, setForbiddenMessage] = useState<string | null>(null);
  const endedShown = useRef(false);

  useEffect(
    () =>
      onSessionNotice((notice) => {
        if (notice.kind === "forbidden") {
          setForbiddenMessage(notice.message);
          return;
        }
        if (endedShown.current) return;
        endedShown.current = true;
        setEndedNotice(notice);
      }),
    [],
  );

  useEffect(() => {
    // Reading storage is synchronous: loading ends right after the first render. The device id is
    // made by the first request that needs it (api/device.ts), not here: deriving it reads the time
    // zone through Intl, a cost the login screen's first paint does not have to wait for.
    const start = () => {
      const stored = storage.readSession();
      if (stored.unreadable) {
        storage.clearSession();
        setState(SIGNED_OUT);
        return;
      }
      if (!stored.token && !stored.user) {
        setState(SIGNED_OUT);
        return;
      }
      const now = Date.now();
      if (stored.token && stored.user && isValid(stored, now)) {
        setState({ status: "signed-in", token: stored.token, user: stored.user, agency: stored.agency });
        return;
      }
      setState(SIGNED_OUT);
      emitSessionNotice(endedNoticeFor(stored, now));
    };
    // As a transition React renders the screen that follows in slices, yielding to the browser
    // between them, instead of in one long task.
    startTransition(start);
  }, []);

  useEffect(() => {
    if (state.status !== "signed-in") return;
    const checkSession = () => {
      const stored = storage.readSession();
      if (!stored.token) {
        emitSessionNotice({ kind: "kicked", message: MESSAGES.SESSION_INVALID });
        return;
      }
      const now = Date.now();
      if (!isValid(stored, now)) {
        emitSessionNotice(endedNoticeFor(stored, now));
        return;
      }
      // A 401 here (session terminated or expired on the server) raises the dialog via the client.
      // The reply also says when an admin last reset this user's install banner; the install
      // feature compares it with the stored choice (features do not import each other).
      authApi
        .profile()
        .then((reply) => {
          const resetAt = reply.user?.pwa_banner_reset_at;
          storage.setInstallBannerResetAt(typeof resetAt === "string" ? resetAt : null);
        })
        .catch(() => undefined);
    };
    const handleVisibilityChange = () => {
      if (document.visibilityState === "visible") checkSession();
    };
    const handleStorage = (event: StorageEvent) => {
      if ((event.key === STORAGE_KEYS.token || event.key === null) && !storage.getToken()) {
        emitSessionNotice({ kind: "kicked", message: MESSAGES.SESSION_INVALID });
      }
    };
    // Loading the page counts as becoming visible: a session ended while it was closed shows at once.
    checkSession();
    const interval = window.setInterval(checkSession, SESSION_CHECK_INTERVAL_MS);
    document.addEventListener("visibilitychange", handleVisibilityChange);
    window.addEventListener("storage", handleStorage);
    return () => {
      window.clearInterval(interval);
      document.removeEventListener("visibilitychange", handleVisibilityChange);
      window.removeEventListener("storage", handleStorage);
    };
  }, [state.status]);

  const clearLocalSession = useCallback(() => {
    storage.clearSession();
    queryClient.clear();
    setState(SIGNED_OUT);
  }, [queryClient]);

  const handleGoToLogin = useCallback(() => {
    setEndedNotice(null);
    clearLocalSession();
    navigate("/login", { replace: true });
  }, [clearLocalSession, navigate]);

  const handleForbiddenLogin = useCallback(() => {
    setForbiddenMessage(null);
    clearLocalSession();
    navigate("/login", { replace: true });
  }, [clearLocalSession, navigate]);

  const completeSignIn = useCallback((data: SignInData) => {
    storage.saveSession(data.token, data.user, data.agency ?? null);
    if (window.location.pathname === "/login") pageNavigation.assign("/");
    else pageNavigation.reload();
  }, []);

  const signOut = useCallback(async () => {
    await Promise.race([
      authApi.logout().catch(() => undefined),
      new Promise((resolve) => setTimeout(resolve, LOGOUT_WAIT_MS)),
    ]);
    clearLocalSession();
    resetLayout();
    navigate("/", { replace: true });
  }, [clearLocalSession, navigate]);

  const value = useMemo<AuthContextValue>(
    () => ({
      user: state.user,
      agency: state.agency,
      token: state.token,
      isAuthenticated: state.status === "signed-in",
      isLoading: state.status === "loading",
      completeSignIn,
      signOut,
    }),
    [state, completeSignIn, signOut],
  );

  return (
    <AuthContext.Provider value={value}>
      {/* Once the session has ended, the signed-in page behind is stale, and a dialog of its own (a job
          popup opening late) would cover this one: show the notice over an empty page instead. */}
      {endedNotice ? null : children}
      {/* Mounted from their first showing: closed, MUI's Dialog still renders its hooks (issue 31). */}
      <LazyMount when={endedNotice !== null}>
        <SessionEndedDialog notice={endedNotice} onGoToLogin={handleGoToLogin} />
      </LazyMount>
      <LazyMount when={forbiddenMessage !== null}>
        <NotAuthorizedDialog
          message={forbiddenMessage}
          onGoToLogin={handleForbiddenLogin}
          onClose={() => setForbiddenMessage(null)}
        />
      </LazyMount>
    </AuthContext.Provider>
  );
}

/** The auth state and its actions; only inside AuthProvider. */
export function useAuth(): AuthContextValue {
  const value = useContext(AuthContext);
  if (!value) throw new Error("useAuth must be used inside AuthProvider");
  return value;
}
