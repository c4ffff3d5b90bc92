import Button from "@mui/material/Button";
import Stack from "@mui/material/Stack";
import TextField from "@mui/material/TextField";
import { useQuery } from "@tanstack/react-query";
import {
  isDuplicatePhoneReply,
  isRegistrationComplete,
  MESSAGES,
  normalizePhone,
  registerRateLimitMessage,
  registrationSchema,
  SIGNUP_AGENCIES,
} from "@turnout/domain";
import { type FormEvent, useRef, useState } from "react";
import { isApiError } from "../../api/errors";
import { fieldErrorsFrom } from "../../api/field-errors";
import { type OfferedUnit, unitsApi } from "../../api/units";
import { ErrorAlert, type ErrorNotice } from "../../ui/error-alert";
import { LocationField } from "../../ui/location-field";
import { UnitChecklist } from "../../ui/unit-checklist";
import { useLocationSearch } from "../../ui/use-location-search";
import { authApi } from "./auth-api";
import { AuthLayout } from "./auth-layout";
import { authErrorNotice } from "./error-notice";
import { AccountExistsDialog, AccountNeedsVerificationDialog } from "./register-dialogs";
// English messages for the zod issues this form shows.
import "../../app/zod-messages";

type FieldErrors = Partial<Record<"first_name" | "last_name" | "phone" | "user_agency" | "location", string>>;

/** The register form's field errors; the three location parts show on the one location field. */
function formFieldErrors(body: Record<string, unknown> | undefined): FieldErrors {
  const result = fieldErrorsFrom(body);
  for (const locationField of ["postcode", "town_name", "state_name"]) {
    if (result[locationField] && !result.location) result.location = result[locationField];
  }
  return result as FieldErrors;
}

/** Create Account (SPEC 2 and 5): all fields required; success leads to activation. */
export function RegisterScreen({
  onBackToLogin,
  onRegistered,
}: {
  onBackToLogin: (phone?: string) => void;
  onRegistered: (phone: string) => void;
}) {
  const [firstName, setFirstName] = useState("");
  const [lastName, setLastName] = useState("");
  const [phoneInput, setPhoneInput] = useState("");
  const [agency, setAgency] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ErrorNotice | null>(null);
  const [fieldErrors, setFieldErrors] = useState<FieldErrors>({});
  const [modal, setModal] = useState<"exists" | "unverified" | null>(null);
  const phoneRef = useRef<HTMLInputElement>(null);
  const location = useLocationSearch();
  // The chosen agency's units near the chosen place (issue 26), nearest first; choosing is optional.
  const place = location.chosen;
  const nearby = useQuery({
    queryKey: ["units", "nearby", agency, place?.postcode, place?.suburb, place?.state_abbreviation],
    queryFn: ({ signal }) =>
      unitsApi.nearby(
        agency,
        { postcode: place!.postcode, suburb: place!.suburb, state: place!.state_abbreviation },
        signal,
      ),
    enabled: agency !== "" && place !== null,
    staleTime: 5 * 60_000,
  });
  const [chosenUnits, setChosenUnits] = useState<OfferedUnit[]>([]);
  // Units no longer offered (another agency or place chosen since) are neither shown nor sent.
  const chosenHere = chosenUnits.filter((u) => nearby.data?.some((n) => n.id === u.id));
  const unitIds = chosenHere.map((u) => u.id);

  const form = {
    first_name: firstName.trim(),
    last_name: lastName.trim(),
    phone: phoneInput.trim(),
    user_agency: agency,
    postcode: location.chosen?.postcode ?? "",
    town_name: location.chosen?.suburb ?? "",
    state_name: location.chosen?.state_abbreviation ?? "",
    ...(unitIds.length > 0 ? { unit_ids: unitIds } : {}),
  };
  const complete = isRegistrationComplete(form);

  const handleSubmit = async (event: FormEvent) => {
    event.preventDefault();
    if (!complete || busy) return;
    setError(null);
    // The same rules the server applies, so most mistakes are caught before a round trip.
    const checked = registrationSchema.safeParse(form);
    if (!checked.success) {
      const issues: Record<string, string> = {};
      for (const issue of checked.error.issues) {
        const field = String(issue.path[0] ?? "");
        issues[field] ??= issue.message;
      }
      setFieldErrors(formFieldErrors({ fields: issues }));
      return;
    }
    setFieldErrors({});
    setBusy(true);
    const { phone } = checked.data;
    try {
      await authApi.register(checked.data);
      onRegistered(phone);
    } catch (caught) {
      if (!isApiError(caught)) {
        setError({ message: MESSAGES.UNEXPECTED });
      } else if (
        caught.status === 409 &&
        (caught.errorType === "account_not_activated" || caught.body?.needsVerification)
      ) {
        setModal("unverified");
      } else if (caught.status === 409 && isDuplicatePhoneReply(caught.message)) {
        setModal("exists");
      } else if (caught.status === 429) {
        setError({ message: registerRateLimitMessage(caught.retryAfter), errorType: "rate_limited" });
      } else {
        if (caught.status === 400) setFieldErrors(formFieldErrors(caught.body));
        setError(authErrorNotice(caught, MESSAGES.REGISTRATION_FAILED));
      }
    } finally {
      setBusy(false);
    }
  };

  const handleUseDifferentNumber = () => {
    setModal(null);
    setPhoneInput("");
    // Focus after the dialog has returned focus to where it came from.
    window.setTimeout(() => phoneRef.current?.focus(), 0);
  };

  return (
    <AuthLayout
      title="Create Account"
      subtitle="Register to receive pager alerts for your agency."
      focusTitle
    >
      <Stack component="form" spacing={2} onSubmit={handleSubmit} noValidate aria-label="Create account">
        <ErrorAlert notice={error} onClose={() => setError(null)} />
        <TextField
          label="First name"
          value={firstName}
          onChange={(event) => setFirstName(event.target.value)}
          error={Boolean(fieldErrors.first_name)}
          helperText={fieldErrors.first_name}
          required
          fullWidth
          slotProps={{ htmlInput: { autoComplete: "given-name" } }}
        />
        <TextField
          label="Last name"
          value={lastName}
          onChange={(event) => setLastName(event.target.value)}
          error={Boolean(fieldErrors.last_name)}
          helperText={fieldErrors.last_name}
          required
          fullWidth
          slotProps={{ htmlInput: { autoComplete: "family-name" } }}
        />
        <TextField
          label="Phone number"
          type="tel"
          value={phoneInput}
          onChange={(event) => setPhoneInput(event.target.value)}
          error={Boolean(fieldErrors.phone)}
          helperText={fieldErrors.phone ?? "e.g. 0412 345 678"}
          inputRef={phoneRef}
          required
          fullWidth
          slotProps={{ htmlInput: { inputMode: "tel", autoComplete: "tel" } }}
        />
        <TextField
          select
          label="Agency"
          value={agency}
          onChange={(event) => setAgency(event.target.value)}
          error={Boolean(fieldErrors.user_agency)}
          helperText={fieldErrors.user_agency}
          required
          fullWidth
          slotProps={{ select: { native: true }, inputLabel: { shrink: true } }}
        >
          <option value="">Select your agency</option>
          {SIGNUP_AGENCIES.map((option) => (
            <option key={option.code} value={option.code}>
              {option.code === option.name ? option.name : `${option.name} (${option.code})`}
            </option>
          ))}
        </TextField>
        <LocationField search={location} error={fieldErrors.location} required />
        {nearby.data && nearby.data.length > 0 ? (
          <UnitChecklist
            label="Your brigade or unit (optional): your feed and alarms follow it"
            units={nearby.data}
            chosen={chosenHere}
            onChange={setChosenUnits}
          />
        ) : null}
        <Button type="submit" variant="contained" size="large" disabled={!complete || busy}>
          Create Account
        </Button>
        <Button onClick={() => onBackToLogin()} disabled={busy}>
          Back to Login
        </Button>
      </Stack>
      <AccountExistsDialog
        open={modal === "exists"}
        onUseDifferentNumber={handleUseDifferentNumber}
        onGoToLogin={() => onBackToLogin(normalizePhone(form.phone))}
      />
      <AccountNeedsVerificationDialog
        open={modal === "unverified"}
        onClose={() => setModal(null)}
        onGoToLogin={() => onBackToLogin(normalizePhone(form.phone))}
      />
    </AuthLayout>
  );
}
