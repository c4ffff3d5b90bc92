import { canSubmitLoginCode, MESSAGES, retryAfterMinutes, validateLoginPhone } from "@turnout/domain";
import { type FormEvent, useState } from "react";
import { isApiError } from "../../api/errors";
import { fieldErrorsFrom } from "../../api/field-errors";
import { ErrorAlert, type ErrorNotice } from "../../ui/error-alert";
import { Button } from "../../ui/kit/kit";
import { LazyMount } from "../../ui/lazy-mount";
import { lazyWithTheme } from "../../ui/lazy-with-theme";
import { TextInput } from "../../ui/text-input";
import { authApi, type DeviceSession, type SignInData } from "./auth-api";
import { AUTH_SUBTITLE_ID, AuthLayout } from "./auth-layout";
import { CodeField } from "./code-field";
import { authErrorNotice } from "./error-notice";

// Built with MUI: they load with its theme when first opened, so the sign-in screen paints without it.
const MaxDevicesDialog = lazyWithTheme(() => import("./max-devices-dialog").then((m) => m.MaxDevicesDialog));
const SecurityLockDialog = lazyWithTheme(() =>
  import("./security-lock-dialog").then((m) => m.SecurityLockDialog),
);

interface SessionLimit {
  sessions: DeviceSession[];
  maxSessions: number;
  /** What to do once a device was signed out: ask for a code, or retry the code just typed. */
  resume: "request-code" | "verify-code";
  /** The server's proof that the code was right, which lets this device choose (issue 27). */
  evictionToken?: string;
}

function sessionsFrom(body: Record<string, unknown> | undefined): DeviceSession[] {
  return Array.isArray(body?.sessions) ? (body.sessions as DeviceSession[]) : [];
}

/**
 * Sign in with a phone number and a one-time code (SPEC 2 and 4): step 1 asks for the phone,
 * checks the device-session limit and requests a code; step 2 ('Enter Code') verifies it.
 */
export function LoginScreen({
  initialPhone = "",
  focusTitle,
  onCreateAccount,
  onCreateAccountIntent,
  onNeedsVerification,
  onSignedIn,
}: {
  initialPhone?: string;
  focusTitle?: boolean;
  onCreateAccount: () => void;
  /** The pointer or focus is on Create New Account: its screen (and MUI) can start loading. */
  onCreateAccountIntent?: () => void;
  onNeedsVerification: (phone: string) => void;
  onSignedIn: (data: SignInData) => void;
}) {
  const [step, setStep] = useState<"phone" | "code">("phone");
  const [phoneInput, setPhoneInput] = useState(initialPhone);
  const [phoneError, setPhoneError] = useState<string | null>(null);
  const [phone, setPhone] = useState("");
  const [code, setCode] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ErrorNotice | null>(null);
  const [lockMinutes, setLockMinutes] = useState<number | null>(null);
  const [sessionLimit, setSessionLimit] = useState<SessionLimit | null>(null);
  const [forceLogoutError, setForceLogoutError] = useState<string | null>(null);

  const showRateLimit = (
    retryAfter: number | undefined,
    serverMessage: string | undefined,
    errorType?: string,
  ) => {
    // SMS held back by the service's budgets is not a lock on this person: the message says when.
    if (errorType === "sms_budget_exceeded" && serverMessage) {
      setError({ message: serverMessage, errorType });
      return;
    }
    setError({ message: serverMessage || MESSAGES.LOGIN_RATE_LIMITED, errorType: "rate_limited" });
    setLockMinutes(retryAfterMinutes(retryAfter));
  };

  const requestCode = async (forPhone: string) => {
    try {
      const reply = await authApi.requestOtp(forPhone);
      if (reply.needsVerification) {
        onNeedsVerification(forPhone);
        return;
      }
      if (!reply.success) {
        setError({ message: reply.message || MESSAGES.OTP_SEND_FAILED, errorType: reply.errorType });
        return;
      }
      setCode("");
      setStep("code");
    } catch (caught) {
      if (!isApiError(caught)) {
        setError({ message: MESSAGES.OTP_SEND_FAILED, errorType: "network_error" });
      } else if (caught.body?.needsVerification === true) {
        onNeedsVerification(forPhone);
      } else if (caught.status === 429) {
        showRateLimit(caught.retryAfter, caught.serverMessage, caught.errorType);
      } else if (caught.status === 404) {
        setError({ message: MESSAGES.USER_NOT_FOUND, errorType: "user_not_found" });
      } else if (caught.status === 400 && caught.errorType === "validation_error") {
        setPhoneError(fieldErrorsFrom(caught.body).phone ?? caught.serverMessage ?? MESSAGES.OTP_SEND_FAILED);
      } else {
        // Deactivated, waiting for an administrator, unavailable: the server says why, in its words.
        setError(authErrorNotice(caught, MESSAGES.OTP_SEND_FAILED));
      }
    }
  };

  const verifyCode = async () => {
    try {
      const reply = await authApi.verifyOtp(phone, code);
      if (reply.success && reply.data?.token) {
        onSignedIn(reply.data);
        return;
      }
      setError({ message: reply.message || MESSAGES.OTP_VERIFY_FAILED, errorType: "api_error" });
    } catch (caught) {
      if (!isApiError(caught) || caught.status === 0) {
        setError({ message: MESSAGES.OTP_VERIFY_FAILED, errorType: "network_error" });
      } else if (caught.status === 409 && caught.errorType === "session_limit") {
        const maxSessions = Number(caught.body?.maxSessions) || sessionsFrom(caught.body).length;
        const evictionToken =
          typeof caught.body?.eviction_token === "string" ? caught.body.eviction_token : undefined;
        setSessionLimit({
          sessions: sessionsFrom(caught.body),
          maxSessions,
          resume: "verify-code",
          evictionToken,
        });
      } else if (caught.status === 429) {
        showRateLimit(caught.retryAfter, caught.serverMessage);
      } else {
        setError(authErrorNotice(caught, MESSAGES.OTP_VERIFY_FAILED));
      }
    }
  };

  const handleSendCode = async (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    const checked = validateLoginPhone(phoneInput);
    if (!checked.ok) {
      setPhoneError(checked.message);
      return;
    }
    setPhoneError(null);
    setPhone(checked.phone);
    setBusy(true);
    try {
      try {
        const limit = await authApi.checkSessionLimit(checked.phone);
        if (limit.canCreate === false) {
          setForceLogoutError(null);
          setSessionLimit({
            sessions: limit.sessions ?? [],
            maxSessions: limit.maxSessions,
            resume: "request-code",
          });
          return;
        }
      } catch {
        // The code request below reports unknown numbers, locks and outages in its own words.
      }
      await requestCode(checked.phone);
    } finally {
      setBusy(false);
    }
  };

  const handleVerify = async (event: FormEvent) => {
    event.preventDefault();
    if (!canSubmitLoginCode(code)) return;
    setError(null);
    setBusy(true);
    try {
      await verifyCode();
    } finally {
      setBusy(false);
    }
  };

  const handleForceLogout = async (sessionId: DeviceSession["id"]) => {
    if (!sessionLimit) return;
    setBusy(true);
    setForceLogoutError(null);
    try {
      await authApi.forceLogout(phone, sessionId, sessionLimit.evictionToken);
    } catch (caught) {
      setForceLogoutError(authErrorNotice(caught, MESSAGES.FORCE_LOGOUT_FAILED).message);
      setBusy(false);
      return;
    }
    const { resume } = sessionLimit;
    setSessionLimit(null);
    try {
      if (resume === "request-code") await requestCode(phone);
      else await verifyCode();
    } finally {
      setBusy(false);
    }
  };

  const handleBackToPhone = () => {
    setStep("phone");
    setCode("");
    setError(null);
  };

  const dialogs = (
    <>
      <LazyMount when={lockMinutes !== null}>
        <SecurityLockDialog minutes={lockMinutes} onClose={() => setLockMinutes(null)} />
      </LazyMount>
      <LazyMount when={sessionLimit !== null}>
        <MaxDevicesDialog
          open={sessionLimit !== null}
          sessions={sessionLimit?.sessions ?? []}
          maxSessions={sessionLimit?.maxSessions ?? 0}
          busy={busy}
          error={forceLogoutError}
          onCancel={() => setSessionLimit(null)}
          onContinue={handleForceLogout}
        />
      </LazyMount>
    </>
  );

  if (step === "code") {
    return (
      // The code field takes the focus, not the title: the user's next move is typing the code, and
      // the field is described by the subtitle, so a screen reader still says where the code went.
      <AuthLayout title="Enter Code" subtitle={`We sent a 6-digit code to ${phone}.`}>
        <form className="auth-layout__form" onSubmit={handleVerify} noValidate aria-label="Enter code">
          <ErrorAlert notice={error} onClose={() => setError(null)} />
          <CodeField
            label="Verification code"
            value={code}
            onChange={setCode}
            disabled={busy}
            describedBy={AUTH_SUBTITLE_ID}
            autoFocus
          />
          <Button type="submit" variant="contained" size="large" disabled={!canSubmitLoginCode(code) || busy}>
            Verify Code
          </Button>
          <Button onClick={handleBackToPhone} disabled={busy}>
            Back to Phone Number
          </Button>
        </form>
        {dialogs}
      </AuthLayout>
    );
  }

  return (
    <AuthLayout
      title="Sign In"
      subtitle="Enter your mobile number to receive a sign-in code."
      focusTitle={focusTitle}
    >
      <form className="auth-layout__form" onSubmit={handleSendCode} noValidate aria-label="Sign in">
        <ErrorAlert notice={error} onClose={() => setError(null)} />
        <TextInput
          label="Phone number"
          type="tel"
          value={phoneInput}
          onChange={(event) => {
            setPhoneInput(event.target.value);
            setPhoneError(null);
          }}
          error={phoneError !== null}
          helperText={phoneError ?? "e.g. 0412 345 678"}
          disabled={busy}
          required
          fullWidth
          htmlInput={{ inputMode: "tel", autoComplete: "tel" }}
        />
        <Button type="submit" variant="contained" size="large" disabled={busy}>
          Send Code
        </Button>
        <Button
          variant="outlined"
          onClick={onCreateAccount}
          onPointerEnter={onCreateAccountIntent}
          onFocus={onCreateAccountIntent}
          disabled={busy}
        >
          Create New Account
        </Button>
      </form>
      {dialogs}
    </AuthLayout>
  );
}
