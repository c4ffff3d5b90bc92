import Button from "@mui/material/Button";
import CircularProgress from "@mui/material/CircularProgress";
import DialogActions from "@mui/material/DialogActions";
import DialogContent from "@mui/material/DialogContent";
import Paper from "@mui/material/Paper";
import Stack from "@mui/material/Stack";
import Typography from "@mui/material/Typography";
import { type AlertRuleInput, displayText, formatDateTime } from "@turnout/domain";
import { type Ref, useId } from "react";
import type { RulePreviewResult } from "../../api/rule-preview";
import { previewMatchesText } from "../../ui/rule-labels";
import { KeywordChips } from "./rule-list";

/** The preview view (SPEC 4): what the rule would have matched, then create or update it. */
export function RulePreview({
  mode,
  input,
  result,
  saving,
  headingRef,
  onBack,
  onSave,
}: {
  mode: "create" | "edit";
  input: AlertRuleInput;
  result: RulePreviewResult;
  saving: boolean;
  headingRef: Ref<HTMLHeadingElement>;
  onBack: () => void;
  onSave: () => void;
}) {
  const headingId = useId();
  const samplesId = useId();
  return (
    <Stack component="section" aria-labelledby={headingId} sx={{ minHeight: 0, flex: "1 1 auto" }}>
      <DialogContent dividers>
        <Stack spacing={2}>
          <Typography id={headingId} ref={headingRef} tabIndex={-1} variant="h6" component="h3">
            Preview: {input.name}
          </Typography>
          <KeywordChips keywords={input.keywords} />
          <Typography sx={{ fontWeight: 600 }}>{previewMatchesText(result)}</Typography>
          <Typography variant="body2" color="text.secondary">
            An SMS is sent only when ALL keywords appear in the same message. The alert is reviewed by an
            admin before it becomes active.
          </Typography>
          {result.sample_messages.length > 0 ? (
            <>
              <Typography id={samplesId} variant="subtitle2" component="h4">
                Sample messages
              </Typography>
              <Stack component="ul" aria-labelledby={samplesId} spacing={1} sx={{ p: 0, m: 0 }}>
                {result.sample_messages.map((sample, index) => (
                  <Paper
                    // Samples have no id; the server's order is stable for one preview.
                    // biome-ignore lint/suspicious/noArrayIndexKey: see above
                    key={index}
                    component="li"
                    variant="outlined"
                    sx={{ p: 1.5, listStyle: "none" }}
                  >
                    <Typography variant="caption" color="text.secondary" component="p">
                      {sample.agency_name || "Unknown agency"} · {formatDateTime(sample.created_at)}
                    </Typography>
                    <Typography variant="body2" sx={{ overflowWrap: "anywhere" }}>
                      {displayText(sample.message)}
                    </Typography>
                  </Paper>
                ))}
              </Stack>
            </>
          ) : (
            <Typography variant="body2">
              No messages matched. You can still save the alert; it will watch new messages.
            </Typography>
          )}
        </Stack>
      </DialogContent>
      <DialogActions sx={{ flexWrap: "wrap", gap: 1, px: 3, py: 2 }}>
        <Button onClick={onBack} disabled={saving}>
          Back
        </Button>
        <Button
          variant="contained"
          onClick={onSave}
          disabled={saving}
          aria-busy={saving}
          startIcon={saving ? <CircularProgress size={18} color="inherit" aria-hidden="true" /> : undefined}
        >
          {mode === "create" ? "Create Alert" : "Update Alert"}
        </Button>
      </DialogActions>
    </Stack>
  );
}
