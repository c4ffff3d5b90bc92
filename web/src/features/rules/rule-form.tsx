import Alert from "@mui/material/Alert";
import Button from "@mui/material/Button";
import Checkbox from "@mui/material/Checkbox";
import CircularProgress from "@mui/material/CircularProgress";
import DialogActions from "@mui/material/DialogActions";
import DialogContent from "@mui/material/DialogContent";
import FormControl from "@mui/material/FormControl";
import FormControlLabel from "@mui/material/FormControlLabel";
import FormGroup from "@mui/material/FormGroup";
import FormHelperText from "@mui/material/FormHelperText";
import FormLabel from "@mui/material/FormLabel";
import MenuItem from "@mui/material/MenuItem";
import Stack from "@mui/material/Stack";
import Switch from "@mui/material/Switch";
import TextField from "@mui/material/TextField";
import Typography from "@mui/material/Typography";
import {
  canPreviewRule,
  RULE_DELIVERIES,
  RULE_DELIVERY_LABELS,
  type RuleDelivery,
  validateKeywords,
} from "@turnout/domain";
import { type FormEvent, type Ref, useId } from "react";
import { KeywordFields } from "./keyword-fields";
import { OFFERED_PRIORITY_LEVELS, priorityLevelLabel, type RuleDraft } from "./rule-draft";
import type { RuleAgency } from "./rules-api";

export interface RuleFormErrors {
  name?: string | undefined;
  keywords?: string | undefined;
}

function toggled<T>(list: T[], value: T, on: boolean): T[] {
  return on ? [...list, value] : list.filter((item) => item !== value);
}

/** A group of checkboxes where nothing ticked means "all" (agencies, message types). */
function ChoiceGroup<T extends string | number>({
  legend,
  hint,
  options,
  selected,
  onChange,
  disabled,
}: {
  legend: string;
  hint: string;
  options: Array<{ value: T; label: string }>;
  selected: T[];
  onChange: (selected: T[]) => void;
  disabled?: boolean;
}) {
  const hintId = useId();
  return (
    <FormControl component="fieldset" aria-describedby={hintId}>
      <FormLabel component="legend">{legend}</FormLabel>
      <FormHelperText id={hintId} sx={{ mx: 0 }}>
        {hint}
      </FormHelperText>
      <FormGroup>
        {options.map((option) => (
          <FormControlLabel
            key={String(option.value)}
            label={option.label}
            sx={{ minHeight: 44 }}
            control={
              <Checkbox
                checked={selected.includes(option.value)}
                onChange={(event) => onChange(toggled(selected, option.value, event.target.checked))}
                disabled={disabled}
              />
            }
          />
        ))}
      </FormGroup>
    </FormControl>
  );
}

/** The create and edit views (SPEC 4 and 5): name, description, keywords, agencies and message types. */
export function RuleForm({
  mode,
  draft,
  errors,
  agencies,
  agenciesStatus,
  busy,
  headingRef,
  onDraftChange,
  onPreview,
  onCancel,
}: {
  mode: "create" | "edit";
  draft: RuleDraft;
  errors: RuleFormErrors;
  agencies: RuleAgency[];
  agenciesStatus: "pending" | "error" | "success";
  busy: boolean;
  headingRef: Ref<HTMLHeadingElement>;
  onDraftChange: (draft: RuleDraft) => void;
  onPreview: () => void;
  onCancel: () => void;
}) {
  const headingId = useId();
  const update = (patch: Partial<RuleDraft>) => onDraftChange({ ...draft, ...patch });

  const keywordCheck = validateKeywords(draft.keywords);
  // Blank fields are not an error to shout about; a saved keyword with a space or comma is.
  const hasText = draft.keywords.some((keyword) => keyword.trim() !== "");
  const keywordError = errors.keywords ?? (!keywordCheck.ok && hasText ? keywordCheck.message : null);

  const agencyOptions = [
    ...agencies.map((agency) => ({ value: agency.id, label: agency.name })),
    // An agency the rule names but the user can no longer pick stays visible so it can be removed.
    ...draft.agencies
      .filter((id) => !agencies.some((agency) => agency.id === id))
      .map((id) => ({ value: id, label: `Agency ${id}` })),
  ];
  const levelOptions = [
    ...OFFERED_PRIORITY_LEVELS,
    ...draft.priorityLevels.filter(
      (level) => !(OFFERED_PRIORITY_LEVELS as readonly string[]).includes(level),
    ),
  ].map((level) => ({ value: level as string, label: priorityLevelLabel(level) }));

  const handleSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (canPreviewRule(draft.keywords) && !busy) onPreview();
  };

  return (
    <Stack
      component="form"
      noValidate
      onSubmit={handleSubmit}
      aria-labelledby={headingId}
      sx={{ minHeight: 0, flex: "1 1 auto" }}
    >
      <DialogContent dividers>
        <Stack spacing={3}>
          <Typography id={headingId} ref={headingRef} tabIndex={-1} variant="h6" component="h3">
            {mode === "create" ? "New Alert" : "Edit Alert"}
          </Typography>
          <TextField
            label="Alert name"
            value={draft.name}
            onChange={(event) => update({ name: event.target.value })}
            required
            error={errors.name !== undefined}
            helperText={errors.name}
            fullWidth
            slotProps={{ htmlInput: { maxLength: 100 } }}
          />
          <TextField
            label="Description (optional)"
            value={draft.description}
            onChange={(event) => update({ description: event.target.value })}
            multiline
            minRows={2}
            fullWidth
            slotProps={{ htmlInput: { maxLength: 500 } }}
          />
          <KeywordFields
            keywords={draft.keywords}
            onChange={(keywords) => update({ keywords })}
            error={keywordError}
          />
          {agenciesStatus === "pending" ? (
            <Stack direction="row" spacing={1} sx={{ alignItems: "center" }} role="status">
              <CircularProgress size={20} aria-hidden="true" />
              <Typography>Loading agencies…</Typography>
            </Stack>
          ) : agenciesStatus === "error" && agencyOptions.length === 0 ? (
            <Alert severity="warning">
              Your agencies could not be loaded. The alert will watch all of them.
            </Alert>
          ) : (
            <ChoiceGroup
              legend="Agencies"
              hint="Leave all unticked to watch all your agencies."
              options={agencyOptions}
              selected={draft.agencies}
              onChange={(selected) => update({ agencies: selected })}
            />
          )}
          <ChoiceGroup
            legend="Message types"
            hint="Leave all unticked for all message types."
            options={levelOptions}
            selected={draft.priorityLevels}
            onChange={(selected) => update({ priorityLevels: selected })}
          />
          <FormControlLabel
            control={
              <Switch
                checked={draft.unitsOnly}
                onChange={(event) => update({ unitsOnly: event.target.checked })}
              />
            }
            label="Only jobs paged to my units"
          />
          <Typography variant="body2" color="text.secondary" sx={{ mt: -1.5 }}>
            In agencies where you chose units (My units); elsewhere the whole agency.
          </Typography>
          <TextField
            select
            label="How to alert me"
            value={draft.delivery}
            onChange={(event) => update({ delivery: event.target.value as RuleDelivery })}
            helperText="Push reaches the devices where you turned push notifications on (user menu)."
            fullWidth
          >
            {RULE_DELIVERIES.map((delivery) => (
              <MenuItem key={delivery} value={delivery}>
                {RULE_DELIVERY_LABELS[delivery]}
              </MenuItem>
            ))}
          </TextField>
          <Typography variant="body2" color="text.secondary">
            New and edited alerts are reviewed by an admin before they become active.
          </Typography>
        </Stack>
      </DialogContent>
      <DialogActions sx={{ flexWrap: "wrap", gap: 1, px: 3, py: 2 }}>
        <Button onClick={onCancel} disabled={busy}>
          Cancel
        </Button>
        <Button
          type="submit"
          variant="contained"
          disabled={!canPreviewRule(draft.keywords) || busy}
          aria-busy={busy}
          startIcon={busy ? <CircularProgress size={18} color="inherit" aria-hidden="true" /> : undefined}
        >
          Preview
        </Button>
      </DialogActions>
    </Stack>
  );
}
