import Button from "@mui/material/Button";
import CircularProgress from "@mui/material/CircularProgress";
import Stack from "@mui/material/Stack";
import { useEffect, useRef, useState } from "react";
import { isApiError } from "../../api/errors";
import { ErrorAlert, type ErrorNotice } from "../../ui/error-alert";
import { authApi, type SignInData } from "./auth-api";
import { AuthLayout } from "./auth-layout";

/**
 * Signs in with the operator's one-time recovery link (issue 27, `npm run admin -- recover`), for an
 * admin locked out of SMS sign-in. The token leaves the address bar at once, so it is never bookmarked
 * or shared by accident.
 */
export function RecoveryScreen({
  token,
  onSignedIn,
  onDone,
}: {
  token: string;
  onSignedIn: (data: SignInData) => void;
  onDone: () => void;
}) {
  const [error, setError] = useState<ErrorNotice | null>(null);
  const started = useRef(false);
  useEffect(() => {
    if (started.current) return;
    started.current = true;
    window.history.replaceState(null, "", window.location.pathname + window.location.search);
    authApi.recover(token).then(
      (reply) => onSignedIn(reply.data),
      (caught: unknown) =>
        setError({
          message:
            isApiError(caught) && caught.serverMessage
              ? caught.serverMessage
              : "The recovery link could not be used. Please try again.",
          errorType: isApiError(caught) ? caught.errorType : "network_error",
        }),
    );
  }, [token, onSignedIn]);

  return (
    <AuthLayout title="Recovery Sign-In" subtitle="Signing you in with the link from your operator.">
      <Stack spacing={2} sx={{ alignItems: "center" }}>
        {error ? (
          <>
            <ErrorAlert notice={error} />
            <Button variant="contained" onClick={onDone}>
              Go to Sign In
            </Button>
          </>
        ) : (
          <CircularProgress aria-label="Signing in" />
        )}
      </Stack>
    </AuthLayout>
  );
}
