import CheckCircleIcon from "@mui/icons-material/CheckCircle";
import ErrorIcon from "@mui/icons-material/Error";
import Alert from "@mui/material/Alert";
import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import CircularProgress from "@mui/material/CircularProgress";
import Dialog from "@mui/material/Dialog";
import DialogActions from "@mui/material/DialogActions";
import DialogContent from "@mui/material/DialogContent";
import DialogTitle from "@mui/material/DialogTitle";
import TextField from "@mui/material/TextField";
import Typography from "@mui/material/Typography";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { capcodeAssignFailedMessage, MESSAGES, UNMAPPED_AGENCY } from "@turnout/domain";
import { type FormEvent, useEffect, useId, useRef, useState } from "react";
import { alertCacheKeys } from "../../../api/alerts";
import { isApiError } from "../../../api/errors";
import { agenciesApi } from "./agencies-api";
import { agenciesQueryOptions, agencyAdminKeys, unmappedCapcodesQueryOptions } from "./queries";

/** SPEC 8: the 'Capcode Assigned!' popup closes by itself after 3 s, like the other success popups. */
export const CAPCODE_ASSIGNED_POPUP_MS = 3_000;

/** The capcode to assign: its number, and its id when the caller knows it (else looked up among the unmapped). */
export interface AssignTarget {
  capcode: string;
  id?: number;
  alias?: string | null;
}

type Outcome = { kind: "assigned"; text: string } | { kind: "failed"; text: string };

function failureDetail(error: unknown): string {
  if (isApiError(error)) return error.serverMessage ?? error.message;
  return error instanceof Error ? error.message : String(error);
}

/**
 * The capcode assignment dialog (SPEC 5 and 8): agency required, alias optional. Assigning moves the
 * capcode's earlier UNMAPPED alerts to the agency, so the feeds are reloaded. Success reads 'Capcode
 * Assigned!' naming agency and alias and closes after 3 s; failure reads 'Assignment Failed'.
 */
export function CapcodeAssignDialog({
  target,
  onClose,
}: {
  target: AssignTarget | null;
  onClose: () => void;
}) {
  const titleId = useId();
  const queryClient = useQueryClient();
  const open = target !== null;
  const agencies = useQuery({ ...agenciesQueryOptions(), enabled: open });
  const needsLookup = open && target.id === undefined;
  const unmapped = useQuery({ ...unmappedCapcodesQueryOptions(), enabled: needsLookup });
  const [agencyId, setAgencyId] = useState("");
  const [alias, setAlias] = useState("");
  const [agencyError, setAgencyError] = useState<string | null>(null);
  const [outcome, setOutcome] = useState<Outcome | null>(null);

  const found = needsLookup ? unmapped.data?.find((row) => row.capcode === target.capcode) : undefined;
  const capcodeId = target?.id ?? found?.id;
  const knownAlias = target?.alias ?? found?.alias ?? "";

  useEffect(() => {
    if (!open) return;
    setAgencyId("");
    setAgencyError(null);
    setOutcome(null);
  }, [open]);
  useEffect(() => {
    if (open) setAlias(knownAlias);
  }, [open, knownAlias]);

  // The 3 s start when the success shows; a parent re-rendering meanwhile must not restart them.
  const latestOnClose = useRef(onClose);
  latestOnClose.current = onClose;
  useEffect(() => {
    if (outcome?.kind !== "assigned") return;
    const timer = window.setTimeout(() => latestOnClose.current(), CAPCODE_ASSIGNED_POPUP_MS);
    return () => window.clearTimeout(timer);
  }, [outcome]);

  const choices = (agencies.data ?? []).filter((agency) => agency.code !== UNMAPPED_AGENCY.code);

  const assign = useMutation({
    mutationFn: (input: { capcodeId: number; agencyId: number; alias: string | null }) =>
      agenciesApi.assignCapcode(input.capcodeId, { agency_id: input.agencyId, alias: input.alias }),
    onSuccess: (_reply, input) => {
      const agency = choices.find((candidate) => candidate.id === input.agencyId);
      const aliasText = input.alias ? ` (${input.alias})` : "";
      setOutcome({
        kind: "assigned",
        text: `Capcode ${target?.capcode ?? ""}${aliasText} is now assigned to ${agency?.name ?? "the agency"}.`,
      });
      void queryClient.invalidateQueries({ queryKey: agencyAdminKeys.all });
      void queryClient.invalidateQueries({ queryKey: alertCacheKeys.feeds() });
    },
    onError: (error) =>
      setOutcome({ kind: "failed", text: capcodeAssignFailedMessage(failureDetail(error)) }),
  });

  const handleSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (!agencyId) {
      setAgencyError("Choose the agency this capcode belongs to");
      return;
    }
    if (capcodeId === undefined) {
      setOutcome({
        kind: "failed",
        text: capcodeAssignFailedMessage(`Capcode ${target?.capcode ?? ""} is no longer unmapped.`),
      });
      return;
    }
    assign.mutate({ capcodeId, agencyId: Number(agencyId), alias: alias.trim() || null });
  };

  if (outcome) {
    const assigned = outcome.kind === "assigned";
    return (
      <Dialog open={open} onClose={onClose} aria-labelledby={titleId} maxWidth="xs" fullWidth>
        <DialogTitle id={titleId} sx={{ display: "flex", alignItems: "center", gap: 1 }}>
          {assigned ? (
            <CheckCircleIcon color="success" aria-hidden="true" />
          ) : (
            <ErrorIcon color="error" aria-hidden="true" />
          )}
          {assigned ? MESSAGES.CAPCODE_ASSIGNED_TITLE : MESSAGES.CAPCODE_ASSIGN_TITLE}
        </DialogTitle>
        <DialogContent>
          <Typography>{outcome.text}</Typography>
        </DialogContent>
        <DialogActions>
          {assigned ? null : <Button onClick={() => setOutcome(null)}>Try Again</Button>}
          <Button variant="contained" onClick={onClose}>
            Close
          </Button>
        </DialogActions>
      </Dialog>
    );
  }

  const lookingUp = needsLookup && unmapped.isPending;
  return (
    <Dialog open={open} onClose={onClose} aria-labelledby={titleId} maxWidth="xs" fullWidth>
      <Box component="form" noValidate onSubmit={handleSubmit}>
        <DialogTitle id={titleId}>{`Assign Capcode ${target?.capcode ?? ""}`}</DialogTitle>
        <DialogContent sx={{ display: "flex", flexDirection: "column", gap: 2, pt: "8px !important" }}>
          {agencies.isError ? <Alert severity="error">{failureDetail(agencies.error)}</Alert> : null}
          <TextField
            select
            label="Agency"
            value={agencyId}
            onChange={(event) => {
              setAgencyId(event.target.value);
              setAgencyError(null);
            }}
            error={agencyError !== null}
            helperText={agencyError}
            required
            fullWidth
            disabled={agencies.isPending}
            slotProps={{ select: { native: true }, inputLabel: { shrink: true } }}
          >
            <option value="">Select an agency</option>
            {choices.map((agency) => (
              <option key={agency.id} value={agency.id}>
                {`${agency.name} (${agency.code})`}
              </option>
            ))}
          </TextField>
          <TextField
            label="Alias"
            value={alias}
            onChange={(event) => setAlias(event.target.value)}
            helperText={MESSAGES.CAPCODE_ALIAS_HINT}
            fullWidth
            slotProps={{ htmlInput: { maxLength: 100 } }}
          />
        </DialogContent>
        <DialogActions>
          <Button onClick={onClose}>Cancel</Button>
          <Button
            type="submit"
            variant="contained"
            disabled={assign.isPending || lookingUp}
            startIcon={assign.isPending ? <CircularProgress size={16} aria-hidden="true" /> : undefined}
          >
            Assign
          </Button>
        </DialogActions>
      </Box>
    </Dialog>
  );
}
