import Alert from "@mui/material/Alert";
import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import Typography from "@mui/material/Typography";
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { ConfirmDialog } from "../../../ui/confirm-dialog";
import { useNoticeToast } from "../../../ui/notice-toast";
import { Section } from "../data-view/section";
import { AccountSection } from "./account-section";
import { AdminActionsSection, OtpAttemptsSection, SecurityEventsSection } from "./activity-section";
import { AutoActivationSection } from "./auto-activation-section";
import { ConfigSection } from "./config-section";
import { LockoutsSection } from "./lockouts-section";
import { securityQueries, useSecurityCleanup } from "./queries";
import type { CleanupResult } from "./security-api";

function StatsLine() {
  const stats = useQuery(securityQueries.stats());
  if (!stats.data) return null;
  const { active_lockouts, attempts_24h } = stats.data;
  return (
    <Typography variant="body2" sx={{ mb: 2 }}>
      {`Active lockouts: ${active_lockouts} · Code checks in the last 24 hours: ${attempts_24h.succeeded} succeeded, ${attempts_24h.failed} failed`}
    </Typography>
  );
}

function cleanupText(result: CleanupResult): string {
  return `Removed ${result.otp_attempts} OTP attempts, ${result.security_events} security events, ${result.lockouts} lock records and ${result.codes} expired codes older than ${result.retention_days} days.`;
}

function CleanupSection({ onNotice }: { onNotice: (message: string, error?: boolean) => void }) {
  const cleanup = useSecurityCleanup();
  const [confirming, setConfirming] = useState(false);
  return (
    <Section id="security-cleanup-heading" title="Cleanup">
      <Typography variant="body2" sx={{ mb: 1 }}>
        Removes OTP attempts, security events, lock records and expired codes older than 90 days.
      </Typography>
      <Button
        variant="outlined"
        color="error"
        onClick={() => setConfirming(true)}
        disabled={cleanup.isPending}
      >
        Clean up old security data
      </Button>
      {cleanup.data && (
        <Alert severity="success" sx={{ mt: 1 }}>
          {cleanupText(cleanup.data)}
        </Alert>
      )}
      <ConfirmDialog
        open={confirming}
        title="Clean up security data?"
        text="Old OTP attempts, security events, lock records and expired codes are deleted for good."
        confirmLabel="Clean up"
        busy={cleanup.isPending}
        onCancel={() => setConfirming(false)}
        onConfirm={() =>
          cleanup.mutate(undefined, {
            onError: (error) => onNotice(error.message, true),
            onSettled: () => setConfirming(false),
          })
        }
      />
    </Section>
  );
}

/**
 * The Security tab (issue 12): the security configuration (edit with validation), brute-force locks
 * with clear, a user's sign-in status with OTP reset (by user or by phone), OTP attempts, security
 * events, admin actions, and cleanup of old data after confirmation.
 */
export function SecurityTab() {
  const { show: handleNotice, toast } = useNoticeToast();
  return (
    <Box component="section" aria-labelledby="security-heading">
      <Typography id="security-heading" variant="h6" component="h2" sx={{ mb: 1 }}>
        Security
      </Typography>
      <StatsLine />
      <ConfigSection />
      <AutoActivationSection onNotice={handleNotice} />
      <LockoutsSection onNotice={handleNotice} />
      <AccountSection onNotice={handleNotice} />
      <OtpAttemptsSection />
      <SecurityEventsSection />
      <AdminActionsSection />
      <CleanupSection onNotice={handleNotice} />
      {toast}
    </Box>
  );
}
