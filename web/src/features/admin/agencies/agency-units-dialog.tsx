import AddIcon from "@mui/icons-material/Add";
import Alert from "@mui/material/Alert";
import AlertTitle from "@mui/material/AlertTitle";
import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import Chip from "@mui/material/Chip";
import CircularProgress from "@mui/material/CircularProgress";
import Dialog from "@mui/material/Dialog";
import DialogActions from "@mui/material/DialogActions";
import DialogContent from "@mui/material/DialogContent";
import DialogTitle from "@mui/material/DialogTitle";
import Table from "@mui/material/Table";
import TableBody from "@mui/material/TableBody";
import TableCell from "@mui/material/TableCell";
import TableHead from "@mui/material/TableHead";
import TableRow from "@mui/material/TableRow";
import Typography from "@mui/material/Typography";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type ReactNode, useEffect, useId, useState } from "react";
import { ConfirmDialog } from "../../../ui/confirm-dialog";
import { placeLabel } from "../../../ui/location-field";
import type { AdminAgency } from "./agencies-api";
import { errorText } from "./error-text";
import { LoadError } from "./load-error";
import { agencyAdminKeys, agencyUnitsQueryOptions } from "./queries";
import { UnitCapcodesDialog } from "./unit-capcodes-dialog";
import { placeOfUnit, UnitFormDialog } from "./unit-form-dialog";
import { type AdminUnit, unitsApi } from "./units-api";

/** What units are for, said where an agency has capcodes but no units yet. */
export const UNITS_GUIDE = "Group capcodes into brigades or units so members see their own jobs first.";

/** Capcodes a unit's row names before "+N more". */
const CAPCODES_SHOWN = 4;

/** What deleting a unit does to its members, in words. */
function deleteText(unit: AdminUnit, agencyName: string): string {
  const count = unit.member_count ?? 0;
  const capcodes = "Its capcodes stay with the agency.";
  if (count === 0) return `No one belongs to it now. ${capcodes}`;
  const members = count === 1 ? "Its member goes" : `Its ${count} members go`;
  return `${members} back to the whole agency's view (every ${agencyName} job), unless in another of its units. ${capcodes}`;
}

function UnitCapcodeChips({ unit }: { unit: AdminUnit }) {
  if (unit.capcodes.length === 0) {
    return (
      <Typography variant="body2" color="warning.main">
        None yet
      </Typography>
    );
  }
  const rest = unit.capcodes.length - CAPCODES_SHOWN;
  return (
    <Box sx={{ display: "flex", flexWrap: "wrap", gap: 0.5 }}>
      {unit.capcodes.slice(0, CAPCODES_SHOWN).map((capcode) => (
        <Chip
          key={capcode.id}
          size="small"
          variant="outlined"
          label={capcode.alias ? `${capcode.capcode} ${capcode.alias}` : capcode.capcode}
        />
      ))}
      {rest > 0 ? <Chip size="small" label={`+${rest} more`} /> : null}
    </Box>
  );
}

/**
 * One agency's units (issue 26): each with its place, capcodes and members; add, edit, choose
 * capcodes, delete. An agency with capcodes and no units is told what units are for.
 */
export function AgencyUnitsDialog({ agency, onClose }: { agency: AdminAgency | null; onClose: () => void }) {
  const titleId = useId();
  const queryClient = useQueryClient();
  const units = useQuery({ ...agencyUnitsQueryOptions(agency?.id ?? 0), enabled: agency !== null });
  const [notice, setNotice] = useState<string | null>(null);
  const [form, setForm] = useState<{ unit: AdminUnit | null } | null>(null);
  const [capcodesOf, setCapcodesOf] = useState<AdminUnit | null>(null);
  const [deleting, setDeleting] = useState<AdminUnit | null>(null);

  // A new agency opened starts clean; the same one reloaded after a change keeps its notice.
  const agencyId = agency?.id ?? null;
  useEffect(() => {
    if (agencyId !== null) setNotice(null);
  }, [agencyId]);

  const remove = useMutation({
    mutationFn: (unit: AdminUnit) => unitsApi.deleteUnit(unit.id),
    onSuccess: (_message, unit) => {
      setDeleting(null);
      setNotice(`Unit ${unit.name} deleted.`);
      void queryClient.invalidateQueries({ queryKey: agencyAdminKeys.all });
    },
  });

  const addButton = (
    <Button
      variant="contained"
      startIcon={<AddIcon aria-hidden="true" />}
      onClick={() => setForm({ unit: null })}
      sx={{ alignSelf: "flex-start", whiteSpace: "nowrap", flexShrink: 0 }}
    >
      Add unit
    </Button>
  );
  const hasCapcodes = (agency?.capcode_count ?? 0) > 0;

  let list: ReactNode;
  if (units.isError) {
    list = <LoadError error={units.error} onRetry={() => void units.refetch()} />;
  } else if (!units.data) {
    list = <CircularProgress size={24} aria-label="Loading units" />;
  } else if (units.data.length === 0) {
    list = hasCapcodes ? (
      <Alert severity="info" action={addButton} sx={{ alignItems: "center" }}>
        <AlertTitle>No units yet</AlertTitle>
        {UNITS_GUIDE} A member of a unit sees its jobs by default, with every {agency?.code ?? ""} job one tap
        away.
      </Alert>
    ) : (
      <>
        <Typography color="text.secondary">
          No units yet. Add the agency's capcodes first, then group them into brigades or units.
        </Typography>
        {addButton}
      </>
    );
  } else {
    list = (
      <>
        <Table size="small" aria-label={`Units of ${agency?.name ?? ""}`}>
          <TableHead>
            <TableRow>
              <TableCell>Unit</TableCell>
              <TableCell>Place</TableCell>
              <TableCell>Capcodes</TableCell>
              <TableCell align="right">Members</TableCell>
              <TableCell align="right">Actions</TableCell>
            </TableRow>
          </TableHead>
          <TableBody>
            {units.data.map((unit) => {
              const place = placeOfUnit(unit);
              return (
                <TableRow key={unit.id}>
                  <TableCell>
                    <Typography sx={{ fontWeight: 600 }}>{unit.name}</Typography>
                    {unit.code ? (
                      <Typography variant="body2" color="text.secondary">
                        {unit.code}
                      </Typography>
                    ) : null}
                  </TableCell>
                  <TableCell>
                    {place ? (
                      placeLabel(place)
                    ) : (
                      <Typography variant="body2" color="text.secondary">
                        Not placed
                      </Typography>
                    )}
                  </TableCell>
                  <TableCell>
                    <UnitCapcodeChips unit={unit} />
                  </TableCell>
                  <TableCell align="right">{unit.member_count ?? 0}</TableCell>
                  <TableCell align="right" sx={{ whiteSpace: "nowrap" }}>
                    <Button
                      size="small"
                      onClick={() => setCapcodesOf(unit)}
                      aria-label={`Capcodes of unit ${unit.name}`}
                    >
                      Capcodes
                    </Button>
                    <Button
                      size="small"
                      onClick={() => setForm({ unit })}
                      aria-label={`Edit unit ${unit.name}`}
                    >
                      Edit
                    </Button>
                    <Button
                      size="small"
                      color="error"
                      onClick={() => {
                        remove.reset();
                        setDeleting(unit);
                      }}
                      aria-label={`Delete unit ${unit.name}`}
                    >
                      Delete
                    </Button>
                  </TableCell>
                </TableRow>
              );
            })}
          </TableBody>
        </Table>
        {addButton}
      </>
    );
  }

  // The unit dialogs show the latest copy once a change reloads the list.
  const fresh = (unit: AdminUnit | null) =>
    unit ? (units.data?.find((candidate) => candidate.id === unit.id) ?? unit) : null;

  return (
    <>
      <Dialog open={agency !== null} onClose={onClose} aria-labelledby={titleId} maxWidth="md" fullWidth>
        <DialogTitle id={titleId}>{`Units of ${agency?.name ?? ""}`}</DialogTitle>
        <DialogContent sx={{ display: "flex", flexDirection: "column", gap: 2 }}>
          {notice ? (
            <Alert severity="success" role="status" onClose={() => setNotice(null)}>
              {notice}
            </Alert>
          ) : null}
          {list}
        </DialogContent>
        <DialogActions>
          <Button onClick={onClose}>Close</Button>
        </DialogActions>
      </Dialog>
      {agency ? (
        <UnitFormDialog
          open={form !== null}
          agency={agency}
          unit={fresh(form?.unit ?? null)}
          onClose={() => setForm(null)}
          onSaved={(message) => {
            setForm(null);
            setNotice(message);
          }}
        />
      ) : null}
      <UnitCapcodesDialog
        unit={fresh(capcodesOf)}
        units={units.data ?? []}
        onClose={() => setCapcodesOf(null)}
        onSaved={(message) => {
          setCapcodesOf(null);
          setNotice(message);
        }}
      />
      <ConfirmDialog
        open={deleting !== null}
        title={`Delete unit ${deleting?.name ?? ""}?`}
        text={deleting ? deleteText(deleting, agency?.name ?? "") : ""}
        confirmLabel="Delete"
        busy={remove.isPending}
        error={remove.isError ? errorText(remove.error) : null}
        onConfirm={() => deleting && remove.mutate(deleting)}
        onCancel={() => setDeleting(null)}
      />
    </>
  );
}
