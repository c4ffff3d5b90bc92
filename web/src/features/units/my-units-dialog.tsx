import Alert from "@mui/material/Alert";
import Button from "@mui/material/Button";
import CircularProgress from "@mui/material/CircularProgress";
import Dialog from "@mui/material/Dialog";
import DialogActions from "@mui/material/DialogActions";
import DialogContent from "@mui/material/DialogContent";
import DialogTitle from "@mui/material/DialogTitle";
import TextField from "@mui/material/TextField";
import Typography from "@mui/material/Typography";
import { keepPreviousData, useMutation, useQuery } from "@tanstack/react-query";
import { LOCATION_SEARCH_DEBOUNCE_MS } from "@turnout/domain";
import { useEffect, useId, useState } from "react";
import { isApiError } from "../../api/errors";
import { type OfferedUnit, unitsApi } from "../../api/units";
import { UnitChecklist } from "../../ui/unit-checklist";
import { useDebounced } from "../../ui/use-debounced";

const unitKeys = {
  mine: ["units", "mine"] as const,
  available: (name: string) => ["units", "available", name] as const,
};

/**
 * 'My units' (issue 26): the member's brigades or units, chosen from their agencies' units nearest
 * where they live (or found by name). Their feed, live alerts, push and keyword rules cover these units
 * by default; with none chosen, their whole agencies as before. `onSaved` lets the page read its view again.
 */
export function MyUnitsDialog({
  open,
  onClose,
  onSaved,
}: {
  open: boolean;
  onClose: () => void;
  onSaved: () => void;
}) {
  const titleId = useId();
  const [name, setName] = useState("");
  const search = useDebounced(name, LOCATION_SEARCH_DEBOUNCE_MS);
  const mine = useQuery({
    queryKey: unitKeys.mine,
    queryFn: ({ signal }) => unitsApi.mine(signal),
    enabled: open,
  });
  const offered = useQuery({
    queryKey: unitKeys.available(search),
    queryFn: ({ signal }) => unitsApi.available(search, signal),
    enabled: open,
    placeholderData: keepPreviousData,
  });
  const [chosen, setChosen] = useState<OfferedUnit[] | null>(null);
  useEffect(() => {
    if (!open) {
      setChosen(null);
      setName("");
    }
  }, [open]);
  const current: OfferedUnit[] =
    chosen ??
    (mine.data ?? []).map((u) => ({ ...u, code: null, suburb: null, state: null, distance_km: null }));
  const save = useMutation({
    mutationFn: () => unitsApi.setMine(current.map((u) => u.id)),
    onSuccess: () => {
      void mine.refetch();
      onSaved();
      onClose();
    },
  });
  const failure = save.error
    ? isApiError(save.error)
      ? save.error.serverMessage || "Failed to save your units."
      : "Failed to save your units."
    : null;

  return (
    <Dialog open={open} onClose={onClose} aria-labelledby={titleId} fullWidth maxWidth="sm">
      <DialogTitle id={titleId}>My units</DialogTitle>
      <DialogContent>
        <Typography variant="body2" color="text.secondary" sx={{ mb: 2 }}>
          Your feed, alarms, push notifications and keyword alerts cover your units' jobs. "All of" your
          agency stays one tap away on the feed.
        </Typography>
        <TextField
          label="Find a unit by name"
          value={name}
          onChange={(event) => setName(event.target.value)}
          fullWidth
          size="small"
          sx={{ mb: 2 }}
          slotProps={{ htmlInput: { maxLength: 100, autoComplete: "off" } }}
        />
        {mine.isPending || offered.isPending ? (
          <CircularProgress size={24} aria-label="Loading units" />
        ) : offered.isError ? (
          <Alert severity="error">Could not load the units of your agencies.</Alert>
        ) : offered.data.length === 0 && current.length === 0 ? (
          <Typography>
            {search ? "No unit of your agencies has that name." : "Your agencies have no units yet."}
          </Typography>
        ) : (
          <UnitChecklist
            label="Nearest first"
            units={offered.data}
            chosen={current}
            onChange={setChosen}
            showAgency
          />
        )}
        {failure ? (
          <Alert severity="error" sx={{ mt: 2 }} role="alert">
            {failure}
          </Alert>
        ) : null}
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>Cancel</Button>
        <Button
          variant="contained"
          onClick={() => save.mutate()}
          disabled={save.isPending || chosen === null}
        >
          Save
        </Button>
      </DialogActions>
    </Dialog>
  );
}
