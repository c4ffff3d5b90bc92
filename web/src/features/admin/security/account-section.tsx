import Alert from "@mui/material/Alert";
import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import Stack from "@mui/material/Stack";
import TextField from "@mui/material/TextField";
import Typography from "@mui/material/Typography";
import { isPlausibleAuPhone, maskPhone, normalizePhone } from "@turnout/domain";
import { type FormEvent, useState } from "react";
import { Section } from "../data-view/section";
import { formatTime } from "./format-time";
import {
  useResetPhoneOtp,
  useResetUserOtp,
  useRevokeUserDevices,
  useUserDevices,
  useUserSecurityStatus,
} from "./queries";

/** A user id as the server takes it: digits only, in range. */
const USER_ID_PATTERN = /^\d{1,9}$/;

function UserStatus({
  userId,
  onNotice,
}: {
  userId: number;
  onNotice: (message: string, error?: boolean) => void;
}) {
  const status = useUserSecurityStatus(userId);
  const reset = useResetUserOtp();
  if (status.isPending) return <Typography>Loading…</Typography>;
  if (status.isError) return <Alert severity="error">{status.error.message}</Alert>;
  const data = status.data;
  return (
    <Box role="group" aria-label={`Status of user ${userId}`} sx={{ mt: 1 }}>
      <Typography variant="body2">
        {`${data.is_active ? "Active" : "Not active"} · ${data.is_verified ? "Verified" : "Not verified"}`}
      </Typography>
      <Typography variant="body2">{`Failed sign-ins: ${data.failures}`}</Typography>
      <Typography variant="body2">
        {data.is_locked ? `Locked until ${formatTime(data.locked_until)}` : "Not locked"}
      </Typography>
      {data.recent_attempts.length > 0 && (
        <Box component="ul" aria-label="Recent attempts" sx={{ my: 0.5, pl: 3 }}>
          {data.recent_attempts.map((attempt, index) => (
            // Attempts carry no id; their order (newest first) is what tells them apart.
            // biome-ignore lint/suspicious/noArrayIndexKey: see above
            <li key={index}>
              <Typography variant="body2">
                {`${formatTime(attempt.created_at)} ${attempt.kind}: ${attempt.success ? "succeeded" : `failed${attempt.reason ? ` (${attempt.reason})` : ""}`}`}
              </Typography>
            </li>
          ))}
        </Box>
      )}
      <Button
        variant="outlined"
        size="small"
        sx={{ mt: 1 }}
        disabled={reset.isPending}
        onClick={() =>
          reset.mutate(userId, {
            onSuccess: (message) => onNotice(message),
            onError: (error) => onNotice(error.message, true),
          })
        }
      >
        Reset sign-in attempts
      </Button>
      <RecognisedDevices userId={userId} onNotice={onNotice} />
    </Box>
  );
}

/**
 * The user's recognised devices (issue 27): each signs in on its own allowance, which strangers cannot
 * use up. Revoke one that is lost or no longer the user's; it then signs in as a new device.
 */
function RecognisedDevices({
  userId,
  onNotice,
}: {
  userId: number;
  onNotice: (message: string, error?: boolean) => void;
}) {
  const devices = useUserDevices(userId);
  const revoke = useRevokeUserDevices();
  const run = (deviceId?: string) =>
    revoke.mutate(
      { userId, deviceId },
      { onSuccess: (message) => onNotice(message), onError: (error) => onNotice(error.message, true) },
    );
  if (devices.isPending) return <Typography variant="body2">Loading devices…</Typography>;
  if (devices.isError) return <Alert severity="error">{devices.error.message}</Alert>;
  return (
    <Box role="group" aria-label="Recognised devices" sx={{ mt: 1 }}>
      <Typography variant="body2">{`Recognised devices: ${devices.data.length}`}</Typography>
      {devices.data.length > 0 && (
        <Box component="ul" sx={{ my: 0.5, pl: 3 }}>
          {devices.data.map((device) => (
            <li key={device.id}>
              <Typography variant="body2" component="span">
                {`${device.device_info}, last used ${formatTime(device.last_used_at)} `}
              </Typography>
              <Button
                size="small"
                disabled={revoke.isPending}
                onClick={() => run(device.id)}
                aria-label={`Revoke ${device.device_info}`}
              >
                Revoke
              </Button>
            </li>
          ))}
        </Box>
      )}
      {devices.data.length > 1 && (
        <Button size="small" variant="outlined" disabled={revoke.isPending} onClick={() => run()}>
          Revoke all devices
        </Button>
      )}
    </Box>
  );
}

/**
 * A user's sign-in status with an OTP reset, and the same reset by phone number (for a phone with no
 * account, or when the id is not at hand). A reset forgets the failures and voids open codes.
 */
export function AccountSection({ onNotice }: { onNotice: (message: string, error?: boolean) => void }) {
  const [idText, setIdText] = useState("");
  const [userId, setUserId] = useState<number | null>(null);
  const [idError, setIdError] = useState<string | null>(null);
  const [phone, setPhone] = useState("");
  const [phoneError, setPhoneError] = useState<string | null>(null);
  const resetPhone = useResetPhoneOtp();

  const handleLookUp = (event: FormEvent) => {
    event.preventDefault();
    const trimmed = idText.trim();
    if (!USER_ID_PATTERN.test(trimmed) || Number(trimmed) < 1) {
      setIdError("Enter a user id (digits only).");
      return;
    }
    setIdError(null);
    setUserId(Number(trimmed));
  };

  const handleResetPhone = (event: FormEvent) => {
    event.preventDefault();
    const normalised = normalizePhone(phone);
    if (!isPlausibleAuPhone(normalised)) {
      setPhoneError("Enter a valid phone number, e.g. 0412 345 678.");
      return;
    }
    setPhoneError(null);
    resetPhone.mutate(normalised, {
      onSuccess: (message) => onNotice(`${message} (${maskPhone(normalised)})`),
      onError: (error) => onNotice(error.message, true),
    });
  };

  return (
    <Section id="security-accounts-heading" title="Sign-in status and OTP reset">
      <Stack
        component="form"
        direction="row"
        onSubmit={handleLookUp}
        noValidate
        sx={{ gap: 1, alignItems: "start" }}
      >
        <TextField
          size="small"
          label="User id"
          value={idText}
          onChange={(event) => setIdText(event.target.value)}
          error={idError !== null}
          helperText={idError ?? " "}
          slotProps={{ htmlInput: { inputMode: "numeric" } }}
        />
        <Button type="submit" variant="outlined">
          Show status
        </Button>
      </Stack>
      {userId !== null && <UserStatus key={userId} userId={userId} onNotice={onNotice} />}
      <Stack
        component="form"
        direction="row"
        onSubmit={handleResetPhone}
        noValidate
        sx={{ gap: 1, alignItems: "start", mt: 2 }}
      >
        <TextField
          size="small"
          label="Phone number"
          type="tel"
          value={phone}
          onChange={(event) => setPhone(event.target.value)}
          error={phoneError !== null}
          helperText={phoneError ?? " "}
        />
        <Button type="submit" variant="outlined" disabled={resetPhone.isPending}>
          Reset OTP by phone
        </Button>
      </Stack>
    </Section>
  );
}
