import AddIcon from "@mui/icons-material/Add";
import InfoOutlinedIcon from "@mui/icons-material/InfoOutlined";
import Alert from "@mui/material/Alert";
import Button from "@mui/material/Button";
import DialogActions from "@mui/material/DialogActions";
import DialogContent from "@mui/material/DialogContent";
import Stack from "@mui/material/Stack";
import Typography from "@mui/material/Typography";
import { type AlertRuleInput, MESSAGES } from "@turnout/domain";
import { useEffect, useId, useRef, useState } from "react";
import { isApiError } from "../../api/errors";
import type { RulePreviewResult } from "../../api/rule-preview";
import { MemberDialog } from "../../ui/member-dialog";
import { useHeadingFocus } from "../../ui/use-heading-focus";
import { DeleteRuleDialog } from "./delete-rule-dialog";
import { ErrorPopup, type ErrorPopupNotice } from "./error-popup";
import {
  useDeleteRule,
  usePreviewRule,
  useRuleAgencies,
  useRules,
  useSaveRule,
  useToggleRule,
} from "./queries";
import { checkDraft, draftFromRule, emptyDraft, type RuleDraft } from "./rule-draft";
import { RuleForm, type RuleFormErrors } from "./rule-form";
import { RuleList } from "./rule-list";
import { RulePreview } from "./rule-preview";
import type { AlertRule } from "./rules-api";

/** The four views of SPEC 4; create and edit share the form and differ by `ruleId`. */
type View =
  | { kind: "list" }
  | { kind: "form"; ruleId: number | null }
  | { kind: "preview"; ruleId: number | null; input: AlertRuleInput; result: RulePreviewResult };

/** The server's own words for a refused save (e.g. a rule limit); generic text for outages. */
function saveErrorMessage(error: unknown): string {
  if (isApiError(error) && error.status >= 400 && error.status < 500 && error.serverMessage) {
    return error.serverMessage;
  }
  return MESSAGES.RULE_SAVE_FAILED;
}

function MyAlertsContent({ onClose }: { onClose: () => void }) {
  const rules = useRules();
  const agencies = useRuleAgencies();
  const previewRule = usePreviewRule();
  const saveRule = useSaveRule();
  const deleteRule = useDeleteRule();
  const toggleRule = useToggleRule();

  const [view, setView] = useState<View>({ kind: "list" });
  const [draft, setDraft] = useState<RuleDraft>(emptyDraft);
  const [formErrors, setFormErrors] = useState<RuleFormErrors>({});
  const [savedNotice, setSavedNotice] = useState<string | null>(null);
  const [pendingDelete, setPendingDelete] = useState<AlertRule | null>(null);
  const [togglingId, setTogglingId] = useState<number | null>(null);
  const [popup, setPopup] = useState<ErrorPopupNotice | null>(null);

  const headingRef = useHeadingFocus(view);
  const deleteReturnFocus = useRef<HTMLElement | null>(null);
  const listHeadingId = useId();

  // Focus asked for while the delete confirmation closes waits for the next commit: until then that
  // dialog's focus trap would pull it straight back.
  const pendingFocus = useRef<HTMLElement | null>(null);
  useEffect(() => {
    if (!pendingFocus.current) return;
    pendingFocus.current.focus();
    pendingFocus.current = null;
  });

  const popupCount = useRef(0);
  const showError = (message: string) => {
    popupCount.current += 1;
    setPopup({ id: popupCount.current, message });
  };

  const openForm = (ruleId: number | null, nextDraft: RuleDraft) => {
    setDraft(nextDraft);
    setFormErrors({});
    setSavedNotice(null);
    setView({ kind: "form", ruleId });
  };

  const handlePreview = async () => {
    if (view.kind !== "form") return;
    const checked = checkDraft(draft);
    if (!checked.ok) {
      setFormErrors({ name: checked.errors.name, keywords: checked.errors.keywords });
      return;
    }
    setFormErrors({});
    const { keywords, agencies: agencyIds, priority_levels } = checked.input;
    try {
      const result = await previewRule.mutateAsync({ keywords, agencies: agencyIds, priority_levels });
      setView({ kind: "preview", ruleId: view.ruleId, input: checked.input, result });
    } catch {
      showError(MESSAGES.PREVIEW_FAILED);
    }
  };

  const handleSave = async () => {
    if (view.kind !== "preview") return;
    try {
      await saveRule.mutateAsync({ id: view.ruleId, input: view.input });
      setSavedNotice(
        view.ruleId === null
          ? "Alert created. An admin will review it before it becomes active."
          : "Alert updated. An admin will review it again before it becomes active.",
      );
      setView({ kind: "list" });
    } catch (error) {
      showError(saveErrorMessage(error));
    }
  };

  const handleToggle = async (rule: AlertRule) => {
    setTogglingId(rule.id);
    try {
      await toggleRule.mutateAsync(rule.id);
    } catch {
      showError(MESSAGES.RULE_TOGGLE_FAILED);
    } finally {
      setTogglingId(null);
    }
  };

  const handleAskDelete = (rule: AlertRule) => {
    deleteReturnFocus.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    setPendingDelete(rule);
  };

  const handleCancelDelete = () => {
    setPendingDelete(null);
    pendingFocus.current = deleteReturnFocus.current;
  };

  const handleConfirmDelete = async (rule: AlertRule) => {
    setPendingDelete(null);
    setSavedNotice(null);
    pendingFocus.current = headingRef.current;
    try {
      await deleteRule.mutateAsync(rule.id);
    } catch {
      // A failed delete is silent (SPEC 8); the list refreshes either way and shows what is true.
    }
  };

  const popupAndDialogs = (
    <>
      <DeleteRuleDialog rule={pendingDelete} onCancel={handleCancelDelete} onConfirm={handleConfirmDelete} />
      <ErrorPopup notice={popup} onClose={() => setPopup(null)} />
    </>
  );

  if (view.kind === "form") {
    return (
      <>
        <RuleForm
          mode={view.ruleId === null ? "create" : "edit"}
          draft={draft}
          errors={formErrors}
          agencies={agencies.data ?? []}
          agenciesStatus={agencies.status}
          busy={previewRule.isPending}
          headingRef={headingRef}
          onDraftChange={(next) => {
            setDraft(next);
            if (formErrors.name && next.name.trim() !== "") setFormErrors({ ...formErrors, name: undefined });
          }}
          onPreview={handlePreview}
          onCancel={() => setView({ kind: "list" })}
        />
        {popupAndDialogs}
      </>
    );
  }

  if (view.kind === "preview") {
    return (
      <>
        <RulePreview
          mode={view.ruleId === null ? "create" : "edit"}
          input={view.input}
          result={view.result}
          saving={saveRule.isPending}
          headingRef={headingRef}
          onBack={() => setView({ kind: "form", ruleId: view.ruleId })}
          onSave={handleSave}
        />
        {popupAndDialogs}
      </>
    );
  }

  return (
    <>
      <DialogContent dividers>
        <Stack spacing={2} component="section" aria-labelledby={listHeadingId}>
          <Typography id={listHeadingId} ref={headingRef} tabIndex={-1} variant="h6" component="h3">
            Your Alerts
          </Typography>
          <Alert severity="info" role="note" icon={<InfoOutlinedIcon />}>
            Get an SMS when a pager message contains your keywords. An SMS is sent only when ALL keywords
            appear in the same message. Alerts are reviewed by an admin before they become active.
          </Alert>
          <div role="status">
            {savedNotice ? (
              <Alert severity="success" role="none" onClose={() => setSavedNotice(null)}>
                {savedNotice}
              </Alert>
            ) : null}
          </div>
          <RuleList
            rules={rules.data ?? []}
            status={rules.status}
            agencies={agencies.data ?? []}
            togglingId={togglingId}
            onRetry={() => void rules.refetch()}
            onToggle={handleToggle}
            onEdit={(rule) => openForm(rule.id, draftFromRule(rule))}
            onDelete={handleAskDelete}
          />
        </Stack>
      </DialogContent>
      <DialogActions sx={{ flexWrap: "wrap", gap: 1, px: 3, py: 2 }}>
        <Button onClick={onClose}>Close</Button>
        <Button variant="contained" startIcon={<AddIcon />} onClick={() => openForm(null, emptyDraft())}>
          New Alert
        </Button>
      </DialogActions>
      {popupAndDialogs}
    </>
  );
}

/**
 * The My Alerts dialog (SPEC 2 and 4): the user's SMS alert rules, with list, create, edit and
 * preview views. Full screen on phones. Mount it from the user menu's 'My Alerts' item.
 */
export function MyAlertsDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  return (
    <MemberDialog open={open} title="My Alerts" onClose={onClose}>
      <MyAlertsContent onClose={onClose} />
    </MemberDialog>
  );
}
