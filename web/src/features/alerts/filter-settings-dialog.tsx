import VisibilityIcon from "@mui/icons-material/Visibility";
import VisibilityOffIcon from "@mui/icons-material/VisibilityOff";
import Alert from "@mui/material/Alert";
import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import CircularProgress from "@mui/material/CircularProgress";
import Dialog from "@mui/material/Dialog";
import DialogActions from "@mui/material/DialogActions";
import DialogContent from "@mui/material/DialogContent";
import DialogContentText from "@mui/material/DialogContentText";
import DialogTitle from "@mui/material/DialogTitle";
import List from "@mui/material/List";
import ListItemButton from "@mui/material/ListItemButton";
import ListItemIcon from "@mui/material/ListItemIcon";
import ListItemText from "@mui/material/ListItemText";
import Typography from "@mui/material/Typography";
import { useMutation, useQuery } from "@tanstack/react-query";
import {
  type FilterState,
  filterStateFromRow,
  MESSAGES,
  nextFilterState,
  toBulkFilters,
} from "@turnout/domain";
import { useEffect, useId, useMemo, useState } from "react";
import { isApiError } from "../../api/errors";
import { alertsApi, type FilterableAgency, type UserFilter } from "./alerts-api";
import { DialogTitleWithClose } from "./dialog-title-with-close";
import { filterSettingsQueryOptions } from "./queries";

/** What each state of SPEC 4 reads as; the icon says the same (shown or hidden). */
const STATE_LABEL: Record<FilterState, string> = {
  default: "Shown (default)",
  show: "Shown",
  hide: "Hidden",
};

function savedStates(agencies: FilterableAgency[], filters: UserFilter[]): Record<string, FilterState> {
  const rows = new Map(
    filters.filter((row) => row.filter_type === "agency").map((row) => [row.filter_value, row] as const),
  );
  return Object.fromEntries(
    agencies.map((agency) => [agency.filter_value, filterStateFromRow(rows.get(agency.filter_value))]),
  );
}

/**
 * 'Alert Filter Settings' (SPEC 2 and 4): each agency shown by default, shown or hidden; a click
 * hides a shown agency and shows a hidden one. Changes are held until 'Save'; closing with unsaved
 * changes asks first.
 */
export function FilterSettingsDialog({
  open,
  onClose,
  onSaved,
}: {
  open: boolean;
  onClose: () => void;
  onSaved: () => void;
}) {
  const titleId = useId();
  const settings = useQuery({ ...filterSettingsQueryOptions(), enabled: open });
  const saved = useMemo(
    () => (settings.data ? savedStates(settings.data.agencies, settings.data.filters) : null),
    [settings.data],
  );
  const [held, setHeld] = useState<Record<string, FilterState> | null>(null);
  const [confirming, setConfirming] = useState(false);
  const save = useMutation({
    mutationFn: (states: Record<string, FilterState>) => alertsApi.saveUserFilters(toBulkFilters(states)),
  });

  useEffect(() => {
    if (!open) {
      setHeld(null);
      setConfirming(false);
      save.reset();
    }
  }, [open, save.reset]);

  // Held edits start from the saved choices once, and are not overwritten by a later refetch.
  useEffect(() => {
    if (open && saved && held === null) setHeld(saved);
  }, [open, saved, held]);

  const dirty =
    held !== null && saved !== null && Object.keys(held).some((value) => held[value] !== saved[value]);

  const handleToggle = (value: string) => {
    setHeld((current) =>
      current ? { ...current, [value]: nextFilterState(current[value] ?? "default") } : current,
    );
  };

  const handleClose = () => {
    if (save.isPending) return;
    if (dirty) setConfirming(true);
    else onClose();
  };

  const handleSave = () => {
    if (!held) return;
    save.mutate(held, { onSuccess: onSaved });
  };

  const saveError = save.error
    ? (isApiError(save.error) && save.error.serverMessage) || MESSAGES.FILTERS_SAVE_FAILED
    : null;
  const agencies = settings.data?.agencies ?? [];

  return (
    <>
      <Dialog open={open} onClose={handleClose} aria-labelledby={titleId} fullWidth maxWidth="sm">
        <DialogTitleWithClose id={titleId} onClose={handleClose}>
          Alert Filter Settings
        </DialogTitleWithClose>
        <DialogContent dividers>
          <DialogContentText sx={{ mb: 1 }}>
            Choose whose alerts appear in your feed. Select an agency to hide it, or to show it again.
          </DialogContentText>
          {settings.isPending ? (
            <Box role="status" sx={{ display: "flex", alignItems: "center", gap: 1.5, py: 2 }}>
              <CircularProgress size={24} aria-hidden="true" />
              <Typography>Loading filter settings…</Typography>
            </Box>
          ) : settings.isError ? (
            <Alert
              severity="error"
              action={
                <Button color="inherit" onClick={() => void settings.refetch()}>
                  Retry
                </Button>
              }
            >
              {MESSAGES.FILTERS_LOAD_FAILED}
            </Alert>
          ) : agencies.length === 0 ? (
            <Typography>You are not assigned to any agency yet.</Typography>
          ) : (
            <List aria-label="Agencies">
              {agencies.map((agency) => {
                const state = held?.[agency.filter_value] ?? "default";
                const changed = saved !== null && saved[agency.filter_value] !== state;
                const hidden = state === "hide";
                return (
                  <ListItemButton
                    key={agency.filter_value}
                    onClick={() => handleToggle(agency.filter_value)}
                    disabled={save.isPending}
                    aria-label={`${agency.name}: ${STATE_LABEL[state]}${changed ? ", not saved yet" : ""}`}
                  >
                    <ListItemIcon>
                      {hidden ? (
                        <VisibilityOffIcon aria-hidden="true" />
                      ) : (
                        <VisibilityIcon aria-hidden="true" color="success" />
                      )}
                    </ListItemIcon>
                    <ListItemText
                      primary={agency.code ? `${agency.name} (${agency.code})` : agency.name}
                      secondary={`${STATE_LABEL[state]}${changed ? " · not saved yet" : ""}`}
                      slotProps={{
                        primary: {
                          sx: { fontWeight: 600, textDecoration: hidden ? "line-through" : "none" },
                        },
                      }}
                    />
                  </ListItemButton>
                );
              })}
            </List>
          )}
          {saveError ? (
            <Alert severity="error" sx={{ mt: 2 }}>
              {saveError}
            </Alert>
          ) : null}
        </DialogContent>
        <DialogActions sx={{ px: 3, py: 2 }}>
          <Button onClick={handleClose} disabled={save.isPending}>
            Cancel
          </Button>
          <Button variant="contained" onClick={handleSave} disabled={!dirty || save.isPending}>
            {save.isPending ? "Saving…" : "Save"}
          </Button>
        </DialogActions>
      </Dialog>
      <Dialog
        open={confirming}
        onClose={() => setConfirming(false)}
        aria-labelledby={`${titleId}-confirm`}
        slotProps={{ paper: { role: "alertdialog" } }}
      >
        <DialogTitle id={`${titleId}-confirm`}>Discard changes?</DialogTitle>
        <DialogContent>
          <DialogContentText>
            Your filter changes have not been saved. Close without saving them?
          </DialogContentText>
        </DialogContent>
        <DialogActions>
          <Button onClick={() => setConfirming(false)} autoFocus>
            Keep Editing
          </Button>
          <Button
            color="error"
            onClick={() => {
              setConfirming(false);
              onClose();
            }}
          >
            Discard Changes
          </Button>
        </DialogActions>
      </Dialog>
    </>
  );
}
