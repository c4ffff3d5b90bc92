import DeleteIcon from "@mui/icons-material/Delete";
import EditIcon from "@mui/icons-material/Edit";
import Alert from "@mui/material/Alert";
import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import Chip from "@mui/material/Chip";
import CircularProgress from "@mui/material/CircularProgress";
import FormControlLabel from "@mui/material/FormControlLabel";
import IconButton from "@mui/material/IconButton";
import Paper from "@mui/material/Paper";
import Stack from "@mui/material/Stack";
import Switch from "@mui/material/Switch";
import Typography from "@mui/material/Typography";
import { RULE_TRIGGER_WINDOW_DAYS } from "@turnout/domain";
import { RuleStatusChip } from "../../ui/rule-labels";
import { priorityLevelLabel } from "./rule-draft";
import type { AlertRule, RuleAgency } from "./rules-api";

/** A rule's keywords as a list of chips. */
export function KeywordChips({ keywords }: { keywords: string[] }) {
  return (
    <Stack
      component="ul"
      aria-label="Keywords"
      direction="row"
      sx={{ flexWrap: "wrap", gap: 0.75, p: 0, m: 0, listStyle: "none" }}
    >
      {keywords.map((keyword, index) => (
        // A keyword may repeat; its place in the rule is what tells two apart.
        // biome-ignore lint/suspicious/noArrayIndexKey: see above
        <li key={index}>
          <Chip size="small" label={keyword} />
        </li>
      ))}
    </Stack>
  );
}

function triggersText(count: number): string {
  return `${count} ${count === 1 ? "trigger" : "triggers"} in the last ${RULE_TRIGGER_WINDOW_DAYS} days`;
}

function RuleCard({
  rule,
  agencies,
  toggling,
  onToggle,
  onEdit,
  onDelete,
}: {
  rule: AlertRule;
  agencies: RuleAgency[];
  toggling: boolean;
  onToggle: (rule: AlertRule) => void;
  onEdit: (rule: AlertRule) => void;
  onDelete: (rule: AlertRule) => void;
}) {
  const headingId = `rule-${rule.id}-name`;
  const agencyNames = rule.agencies.map(
    (id) => agencies.find((agency) => agency.id === id)?.name ?? `Agency ${id}`,
  );
  const levelNames = [...new Set(rule.priority_levels.map(priorityLevelLabel))];

  return (
    <Paper component="li" variant="outlined" aria-labelledby={headingId} sx={{ p: 2, listStyle: "none" }}>
      <Stack spacing={1.25}>
        <Stack direction="row" spacing={1} sx={{ alignItems: "flex-start" }}>
          <Box sx={{ flexGrow: 1, minWidth: 0 }}>
            <Typography
              id={headingId}
              variant="subtitle1"
              component="h4"
              sx={{ fontWeight: 600, overflowWrap: "anywhere" }}
            >
              {rule.name}
            </Typography>
            {rule.description ? (
              <Typography variant="body2" color="text.secondary" sx={{ overflowWrap: "anywhere" }}>
                {rule.description}
              </Typography>
            ) : null}
          </Box>
          <IconButton aria-label={`Edit ${rule.name}`} onClick={() => onEdit(rule)}>
            <EditIcon />
          </IconButton>
          <IconButton aria-label={`Delete ${rule.name}`} onClick={() => onDelete(rule)}>
            <DeleteIcon />
          </IconButton>
        </Stack>
        <Box>
          <RuleStatusChip status={rule.status} />
        </Box>
        <KeywordChips keywords={rule.keywords} />
        <Typography variant="body2" color="text.secondary">
          Agencies: {agencyNames.length > 0 ? agencyNames.join(", ") : "All"} · Message types:{" "}
          {levelNames.length > 0 ? levelNames.join(", ") : "All"}
        </Typography>
        <Typography variant="body2">{triggersText(rule.triggers_last_30_days)}</Typography>
        {rule.status === "rejected" ? (
          <Alert severity="error" variant="outlined" role="note" sx={{ py: 0 }}>
            Rejection reason: {rule.rejection_reason || "No reason given."}
          </Alert>
        ) : null}
        {rule.status === "pending" ? (
          <Typography variant="body2" color="text.secondary">
            Waiting for an admin to review it.
          </Typography>
        ) : null}
        {rule.status === "suspended" ? (
          <Typography variant="body2" color="text.secondary">
            Suspended by an admin; it sends no SMS.
          </Typography>
        ) : null}
        {rule.status === "approved" ? (
          <FormControlLabel
            sx={{ minHeight: 44, alignSelf: "flex-start", ml: 0 }}
            control={
              <Switch
                checked={rule.is_active}
                disabled={toggling}
                onChange={() => onToggle(rule)}
                slotProps={{ input: { "aria-label": `SMS for ${rule.name}` } }}
              />
            }
            label={rule.is_active ? "SMS on" : "SMS off"}
          />
        ) : null}
      </Stack>
    </Paper>
  );
}

/** The list view (SPEC 2 and 4): every rule with its status, keywords, switch and actions. */
export function RuleList({
  rules,
  status,
  agencies,
  togglingId,
  onRetry,
  onToggle,
  onEdit,
  onDelete,
}: {
  rules: AlertRule[];
  status: "pending" | "error" | "success";
  agencies: RuleAgency[];
  togglingId: number | null;
  onRetry: () => void;
  onToggle: (rule: AlertRule) => void;
  onEdit: (rule: AlertRule) => void;
  onDelete: (rule: AlertRule) => void;
}) {
  if (status === "pending") {
    return (
      <Stack direction="row" spacing={1} role="status" sx={{ alignItems: "center", py: 2 }}>
        <CircularProgress size={24} aria-hidden="true" />
        <Typography>Loading your alerts…</Typography>
      </Stack>
    );
  }
  if (status === "error") {
    return (
      <Alert
        severity="error"
        action={
          <Button color="inherit" onClick={onRetry}>
            Retry
          </Button>
        }
      >
        Failed to load your alerts.
      </Alert>
    );
  }
  if (rules.length === 0) {
    return (
      <Box sx={{ py: 3, textAlign: "center" }}>
        <Typography sx={{ fontWeight: 600 }}>You have no alerts yet.</Typography>
        <Typography variant="body2" color="text.secondary">
          Create one to get an SMS when a pager message contains your keywords.
        </Typography>
      </Box>
    );
  }
  return (
    <Stack component="ul" aria-label="Your alerts" spacing={1.5} sx={{ p: 0, m: 0 }}>
      {rules.map((rule) => (
        <RuleCard
          key={rule.id}
          rule={rule}
          agencies={agencies}
          toggling={togglingId === rule.id}
          onToggle={onToggle}
          onEdit={onEdit}
          onDelete={onDelete}
        />
      ))}
    </Stack>
  );
}
