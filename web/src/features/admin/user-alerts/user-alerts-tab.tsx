import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import DialogContentText from "@mui/material/DialogContentText";
import Paper from "@mui/material/Paper";
import Stack from "@mui/material/Stack";
import TextField from "@mui/material/TextField";
import Typography from "@mui/material/Typography";
import {
  displayText,
  formatDateTime,
  RULE_STATUSES,
  RULE_TRIGGER_WINDOW_DAYS,
  type RuleStatus,
} from "@turnout/domain";
import { useId, useState } from "react";
import { useNoticeToast } from "../../../ui/notice-toast";
import { previewMatchesText, RuleStatusChip, STATUS_PRESENTATION } from "../../../ui/rule-labels";
import { StatusFilter } from "../../../ui/status-filter";
import { FormDialog } from "../data-view/form-dialog";
import { QueryState } from "../data-view/query-state";
import { useDecideRule, usePendingRuleCount, useReviewRules, useRuleMatches } from "./queries";
import type { ReviewRule, RuleDecision } from "./user-alerts-api";

const TYPE_LABELS: Record<string, string> = {
  emergency: "Emergency",
  "non-emergency": "Non-emergency",
  admin: "Admin",
};

/** The longest reason the server keeps (it answers 400 beyond). */
const REASON_MAX_LENGTH = 500;

function ownerText(rule: ReviewRule): string {
  if (!rule.user) return "Unknown member";
  return `${rule.user.first_name} ${rule.user.last_name} (${rule.user.phone})`;
}

function listText(values: string[]): string {
  return values.length === 0 ? "All" : values.join(", ");
}

/** What the rule would have matched in the last 3 months, as its owner's preview showed it. */
function RuleMatches({ rule, id }: { rule: ReviewRule; id: string }) {
  const matches = useRuleMatches(rule);
  const samplesId = useId();
  return (
    <Box id={id} role="region" aria-label={`Matches of ${rule.name}`} sx={{ mt: 1 }}>
      <QueryState query={matches} loadingLabel="Checking matches" spinnerSize={20} isEmpty={() => false}>
        {(data) => (
          <>
            <Typography variant="body2" sx={{ fontWeight: 600 }}>
              {previewMatchesText(data)}
            </Typography>
            {data.sample_messages.length > 0 && (
              <>
                <Typography id={samplesId} variant="caption" color="text.secondary" component="p">
                  Newest matches
                </Typography>
                <Stack component="ul" aria-labelledby={samplesId} sx={{ gap: 0.5, p: 0, m: 0 }}>
                  {data.sample_messages.map((sample, index) => (
                    <Box
                      // Samples have no id; the server's order is stable for one answer.
                      // biome-ignore lint/suspicious/noArrayIndexKey: see above
                      key={index}
                      component="li"
                      sx={{ listStyle: "none", borderLeft: 2, borderColor: "divider", pl: 1 }}
                    >
                      <Typography variant="caption" color="text.secondary" component="p">
                        {sample.agency_name || "Unknown agency"} · {formatDateTime(sample.created_at)}
                      </Typography>
                      <Typography variant="body2" sx={{ overflowWrap: "anywhere" }}>
                        {displayText(sample.message)}
                      </Typography>
                    </Box>
                  ))}
                </Stack>
              </>
            )}
          </>
        )}
      </QueryState>
    </Box>
  );
}

function RuleCard({
  rule,
  busy,
  onDecide,
  onReject,
}: {
  rule: ReviewRule;
  busy: boolean;
  onDecide: (rule: ReviewRule, decision: RuleDecision) => void;
  onReject: (rule: ReviewRule) => void;
}) {
  const headingId = `review-rule-${rule.id}`;
  const triggers = rule.triggers_last_30_days;
  const [checking, setChecking] = useState(false);
  const matchesId = `review-rule-matches-${rule.id}`;
  return (
    <Paper component="li" variant="outlined" aria-labelledby={headingId} sx={{ p: 2, listStyle: "none" }}>
      <Stack direction="row" sx={{ alignItems: "center", gap: 1, flexWrap: "wrap" }}>
        <Typography id={headingId} variant="subtitle1" component="h3" sx={{ fontWeight: 600 }}>
          {rule.name}
        </Typography>
        <RuleStatusChip status={rule.status} />
      </Stack>
      <Typography variant="body2">Owner: {ownerText(rule)}</Typography>
      {rule.description && <Typography variant="body2">{rule.description}</Typography>}
      <Typography variant="body2">Keywords: {rule.keywords.join(", ")}</Typography>
      <Typography variant="body2">
        Agencies: {listText(rule.agency_names)} · Message types:{" "}
        {listText(rule.priority_levels.map((level) => TYPE_LABELS[level] ?? level))}
      </Typography>
      <Typography variant="body2" color="text.secondary">
        {`${triggers} ${triggers === 1 ? "trigger" : "triggers"} in the last ${RULE_TRIGGER_WINDOW_DAYS} days`}
      </Typography>
      {rule.status === "rejected" && rule.rejection_reason && (
        <Typography variant="body2" color="error">
          Rejection reason: {rule.rejection_reason}
        </Typography>
      )}
      <Stack direction="row" sx={{ gap: 1, mt: 1, flexWrap: "wrap" }}>
        {rule.status !== "approved" && (
          <Button size="small" variant="contained" disabled={busy} onClick={() => onDecide(rule, "approve")}>
            Approve
          </Button>
        )}
        {rule.status !== "rejected" && (
          <Button size="small" color="error" disabled={busy} onClick={() => onReject(rule)}>
            Reject
          </Button>
        )}
        {rule.status === "approved" && (
          <Button size="small" color="warning" disabled={busy} onClick={() => onDecide(rule, "suspend")}>
            Suspend
          </Button>
        )}
        <Button
          size="small"
          variant="outlined"
          aria-expanded={checking}
          aria-controls={checking ? matchesId : undefined}
          onClick={() => setChecking((open) => !open)}
        >
          {checking ? "Hide matches" : "Check matches"}
        </Button>
      </Stack>
      {checking && <RuleMatches rule={rule} id={matchesId} />}
    </Paper>
  );
}

/** Rejecting needs a reason: the member reads it in the SMS and in My Alerts. */
function RejectDialog({
  rule,
  busy,
  error,
  onCancel,
  onConfirm,
}: {
  rule: ReviewRule | null;
  busy: boolean;
  error: string | null;
  onCancel: () => void;
  onConfirm: (rule: ReviewRule, reason: string) => void;
}) {
  const [reason, setReason] = useState("");
  const [touched, setTouched] = useState(false);
  const missing = reason.trim() === "";
  const handleSubmit = () => {
    setTouched(true);
    if (rule && !missing) onConfirm(rule, reason.trim());
  };
  const handleClose = () => {
    setReason("");
    setTouched(false);
    onCancel();
  };
  return (
    <FormDialog
      open={rule !== null}
      title="Reject Alert Rule"
      error={error}
      submitLabel="Reject"
      submitColor="error"
      busy={busy}
      onSubmit={handleSubmit}
      onClose={handleClose}
    >
      <DialogContentText>
        {`The member is told by SMS that “${rule?.name ?? ""}” was rejected, with this reason.`}
      </DialogContentText>
      <TextField
        label="Reason"
        value={reason}
        onChange={(event) => setReason(event.target.value)}
        required
        fullWidth
        multiline
        minRows={2}
        error={touched && missing}
        helperText={touched && missing ? "A reason is required." : " "}
        slotProps={{ htmlInput: { maxLength: REASON_MAX_LENGTH } }}
      />
    </FormDialog>
  );
}

/**
 * The User Alerts tab (issue 12): members' keyword SMS rules, pending first, with owner, keywords,
 * agencies, types and recent triggers; approve, reject with a reason, or suspend. The server tells
 * the member of each decision by SMS. 'Check matches' shows what a rule would have matched in the last
 * 3 months (the owner's preview), one rule at a time because each is a count over the alerts.
 */
export function UserAlertsTab() {
  const [status, setStatus] = useState<RuleStatus | null>(null);
  const rules = useReviewRules(status);
  const pending = usePendingRuleCount();
  const decide = useDecideRule();
  const [rejecting, setRejecting] = useState<ReviewRule | null>(null);
  const [rejectError, setRejectError] = useState<string | null>(null);

  const { show, toast } = useNoticeToast();

  const handleDecide = (rule: ReviewRule, decision: RuleDecision) => {
    decide.mutate(
      { id: rule.id, decision },
      { onSuccess: (message) => show(message), onError: (error) => show(error.message, true) },
    );
  };

  const handleReject = (rule: ReviewRule, reason: string) => {
    setRejectError(null);
    decide.mutate(
      { id: rule.id, decision: "reject", reason },
      {
        onSuccess: (message) => {
          setRejecting(null);
          show(message);
        },
        onError: (error) => setRejectError(error.message),
      },
    );
  };

  return (
    <Box component="section" aria-labelledby="user-alerts-heading">
      <Stack direction="row" sx={{ alignItems: "center", gap: 2, mb: 2, flexWrap: "wrap" }}>
        <Typography id="user-alerts-heading" variant="h6" component="h2">
          User Alerts
        </Typography>
        <Typography variant="body2" color="text.secondary">
          {`${pending} waiting for review`}
        </Typography>
        <StatusFilter
          value={status}
          statuses={RULE_STATUSES}
          labelOf={(value) => STATUS_PRESENTATION[value].label}
          onChange={setStatus}
          sx={{ minWidth: 160, ml: "auto" }}
        />
      </Stack>
      <QueryState query={rules} loadingLabel="Loading alert rules" emptyText="No alert rules.">
        {(list) => (
          <Stack component="ul" aria-label="Alert rules" sx={{ gap: 1.5, p: 0, m: 0 }}>
            {list.map((rule) => (
              <RuleCard
                key={rule.id}
                rule={rule}
                busy={decide.isPending}
                onDecide={handleDecide}
                onReject={(target) => {
                  setRejectError(null);
                  setRejecting(target);
                }}
              />
            ))}
          </Stack>
        )}
      </QueryState>
      <RejectDialog
        key={rejecting?.id ?? "none"}
        rule={rejecting}
        busy={decide.isPending}
        error={rejectError}
        onCancel={() => setRejecting(null)}
        onConfirm={handleReject}
      />
      {toast}
    </Box>
  );
}
