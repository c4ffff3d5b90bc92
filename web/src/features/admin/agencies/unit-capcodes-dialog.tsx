import SearchIcon from "@mui/icons-material/Search";
import Alert from "@mui/material/Alert";
import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import Checkbox from "@mui/material/Checkbox";
import Dialog from "@mui/material/Dialog";
import DialogActions from "@mui/material/DialogActions";
import DialogContent from "@mui/material/DialogContent";
import DialogTitle from "@mui/material/DialogTitle";
import InputAdornment from "@mui/material/InputAdornment";
import List from "@mui/material/List";
import ListItem from "@mui/material/ListItem";
import ListItemIcon from "@mui/material/ListItemIcon";
import ListItemText from "@mui/material/ListItemText";
import TextField from "@mui/material/TextField";
import Typography from "@mui/material/Typography";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useId, useMemo, useState } from "react";
import { QueryState } from "../data-view/query-state";
import type { Capcode } from "./agencies-api";
import { errorText } from "./error-text";
import { agencyAdminKeys, agencyCapcodesQueryOptions } from "./queries";
import { type AdminUnit, unitsApi } from "./units-api";

/** Rows the checklist draws at once; a search narrows the rest (a state agency has thousands of capcodes). */
export const CAPCODE_CHECKLIST_LIMIT = 200;

/** Whether a capcode matches the search text: its number, alias or area, in any case. */
function matches(capcode: Capcode, text: string): boolean {
  if (text === "") return true;
  return [capcode.capcode, capcode.alias, capcode.area].some((value) => value?.toLowerCase().includes(text));
}

/** The accessible name of a capcode's checkbox: its number and alias. */
function capcodeName(capcode: Capcode): string {
  return capcode.alias ? `${capcode.capcode} ${capcode.alias}` : capcode.capcode;
}

/**
 * Chooses the capcodes a unit is paged on from its agency's capcodes: a checklist with a search,
 * the unit's own ones first, each capcode that already serves other units saying which (a capcode
 * may serve several units, e.g. a group's).
 */
export function UnitCapcodesDialog({
  unit,
  units,
  onClose,
  onSaved,
}: {
  unit: AdminUnit | null;
  /** Every unit of the agency, to name the others a capcode serves. */
  units: AdminUnit[];
  onClose: () => void;
  onSaved: (message: string) => void;
}) {
  const titleId = useId();
  return (
    <Dialog open={unit !== null} onClose={onClose} aria-labelledby={titleId} maxWidth="sm" fullWidth>
      {/* Mounted per opening, so the ticks start from the unit's saved capcodes. */}
      {unit ? (
        <CapcodeChecklist titleId={titleId} unit={unit} units={units} onClose={onClose} onSaved={onSaved} />
      ) : null}
    </Dialog>
  );
}

function CapcodeChecklist({
  titleId,
  unit,
  units,
  onClose,
  onSaved,
}: {
  titleId: string;
  unit: AdminUnit;
  units: AdminUnit[];
  onClose: () => void;
  onSaved: (message: string) => void;
}) {
  const queryClient = useQueryClient();
  const capcodes = useQuery(agencyCapcodesQueryOptions(unit.agency_id));
  const [initial] = useState(() => new Set(unit.capcodes.map((capcode) => capcode.id)));
  const [selected, setSelected] = useState<ReadonlySet<number>>(initial);
  const [search, setSearch] = useState("");

  /** The other units each capcode serves, by capcode id. */
  const othersOf = useMemo(() => {
    const byCapcode = new Map<number, string[]>();
    for (const other of units) {
      if (other.id === unit.id) continue;
      for (const capcode of other.capcodes)
        byCapcode.set(capcode.id, [...(byCapcode.get(capcode.id) ?? []), other.name]);
    }
    return byCapcode;
  }, [units, unit.id]);

  // The unit's saved capcodes first (as opened, so a tick does not move a row), then by number.
  const ordered = useMemo(
    () =>
      [...(capcodes.data ?? [])].sort(
        (a, b) => Number(initial.has(b.id)) - Number(initial.has(a.id)) || a.capcode.localeCompare(b.capcode),
      ),
    [capcodes.data, initial],
  );
  const text = search.trim().toLowerCase();
  const matching = ordered.filter((capcode) => matches(capcode, text));
  const shown = matching.slice(0, CAPCODE_CHECKLIST_LIMIT);

  const save = useMutation({
    mutationFn: (ids: number[]) => unitsApi.setUnitCapcodes(unit.id, ids),
    onSuccess: (_message, ids) => {
      void queryClient.invalidateQueries({ queryKey: agencyAdminKeys.all });
      onSaved(`${unit.name} is paged on ${ids.length} capcode${ids.length === 1 ? "" : "s"}.`);
    },
  });

  const toggle = (id: number) =>
    setSelected((current) => {
      const next = new Set(current);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });

  const body = (
    <QueryState
      query={capcodes}
      loadingLabel="Loading capcodes"
      spinnerSize={24}
      errorText={errorText}
      emptyText="This agency has no capcodes yet: add them with its Capcodes button first."
    >
      {() => (
        <>
          <TextField
            label="Search capcodes"
            placeholder="Number, alias or area"
            size="small"
            value={search}
            onChange={(event) => setSearch(event.target.value)}
            fullWidth
            slotProps={{
              input: {
                startAdornment: (
                  <InputAdornment position="start">
                    <SearchIcon aria-hidden="true" />
                  </InputAdornment>
                ),
              },
            }}
          />
          {matching.length === 0 ? (
            <Typography color="text.secondary">No capcode matches “{search.trim()}”.</Typography>
          ) : (
            <List dense aria-label={`Capcodes of ${unit.name}`} sx={{ maxHeight: 360, overflowY: "auto" }}>
              {shown.map((capcode) => {
                const others = othersOf.get(capcode.id);
                const labelId = `${titleId}-c${capcode.id}`;
                const detail = [capcode.area, others ? `Also in ${others.join(", ")}` : null]
                  .filter(Boolean)
                  .join(" · ");
                return (
                  <ListItem key={capcode.id} disableGutters disablePadding>
                    <ListItemIcon sx={{ minWidth: 40 }}>
                      <Checkbox
                        edge="start"
                        checked={selected.has(capcode.id)}
                        onChange={() => toggle(capcode.id)}
                        slotProps={{
                          input: {
                            "aria-label": capcodeName(capcode),
                            "aria-describedby": detail ? `${labelId}-detail` : undefined,
                          },
                        }}
                      />
                    </ListItemIcon>
                    <ListItemText
                      id={labelId}
                      primary={
                        <>
                          <Box component="span" sx={{ fontFamily: "monospace" }}>
                            {capcode.capcode}
                          </Box>
                          {capcode.alias ? ` ${capcode.alias}` : ""}
                        </>
                      }
                      secondary={detail || null}
                      slotProps={{ secondary: { id: `${labelId}-detail` } }}
                      onClick={() => toggle(capcode.id)}
                      sx={{ cursor: "pointer" }}
                    />
                  </ListItem>
                );
              })}
            </List>
          )}
          {matching.length > shown.length ? (
            <Typography variant="body2" color="text.secondary">
              {`Showing ${shown.length} of ${matching.length}: search to find the others.`}
            </Typography>
          ) : null}
        </>
      )}
    </QueryState>
  );

  return (
    <>
      <DialogTitle id={titleId}>{`Capcodes of unit ${unit.name}`}</DialogTitle>
      <DialogContent sx={{ display: "flex", flexDirection: "column", gap: 2, pt: "8px !important" }}>
        <Typography variant="body2" color="text.secondary">
          Members of the unit see the jobs paged to these capcodes first. A capcode may serve several units.
        </Typography>
        {save.isError ? (
          <Alert severity="error" role="alert">
            {errorText(save.error)}
          </Alert>
        ) : null}
        {body}
      </DialogContent>
      <DialogActions>
        <Typography variant="body2" color="text.secondary" aria-live="polite" sx={{ mr: "auto", pl: 2 }}>
          {`${selected.size} selected`}
        </Typography>
        <Button onClick={onClose}>Cancel</Button>
        <Button
          variant="contained"
          disabled={save.isPending || !capcodes.data}
          onClick={() => save.mutate([...selected])}
        >
          Save
        </Button>
      </DialogActions>
    </>
  );
}
