import { useEffect, useState } from "react";
import { onDeviceCheck } from "../../api/proof-of-work";
import { Notice } from "../../ui/kit/kit";

/** The words shown while the browser proves some work to the server (issue 27). */
export const DEVICE_CHECK_TEXT = "Checking your device...";

/**
 * "Checking your device..." while a sign-in call solves the server's challenge (only while the phone
 * or the service is under attack; a second or two on a phone). Announced politely to screen readers.
 */
export function DeviceCheckNotice() {
  const [checking, setChecking] = useState(false);
  useEffect(() => onDeviceCheck(setChecking), []);
  if (!checking) return null;
  return (
    <Notice severity="info" role="status" aria-live="polite" className="auth-layout__notice">
      {DEVICE_CHECK_TEXT}
    </Notice>
  );
}
