import AddIcon from "@mui/icons-material/Add";
import Alert from "@mui/material/Alert";
import AlertTitle from "@mui/material/AlertTitle";
import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import Chip from "@mui/material/Chip";
import Typography from "@mui/material/Typography";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useConfirmation } from "../../../ui/confirmation";
import { placeLabel } from "../../../ui/location-field";
import { AdminList } from "../data-view/admin-list";
import { ListDialog, useNotice } from "../data-view/list-dialog";
import type { AdminAgency } from "./agencies-api";
import { errorText } from "./error-text";
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

function UnitPlace({ unit }: { unit: AdminUnit }) {
  const place = placeOfUnit(unit);
  if (place) return placeLabel(place);
  return (
    <Typography variant="body2" color="text.secondary">
      Not placed
    </Typography>
  );
}

/**
 * One agency's units (issue 26): each with its place, capcodes and members; add, edit, choose
 * capcodes, delete. An agency with capcodes and no units is told what units are for.
 */
export function AgencyUnitsDialog({ agency, onClose }: { agency: AdminAgency | null; onClose: () => void }) {
  const queryClient = useQueryClient();
  const units = useQuery({ ...agencyUnitsQueryOptions(agency?.id ?? 0), enabled: agency !== null });
  const [notice, setNotice] = useNotice(agency?.id);
  const [form, setForm] = useState<{ unit: AdminUnit | null } | null>(null);
  const [capcodesOf, setCapcodesOf] = useState<AdminUnit | null>(null);
  const confirm = useConfirmation();

  const remove = useMutation({
    mutationFn: (unit: AdminUnit) => unitsApi.deleteUnit(unit.id),
    onSuccess: (_message, unit) => {
      confirm.close();
      setNotice(`Unit ${unit.name} deleted.`);
      void queryClient.invalidateQueries({ queryKey: agencyAdminKeys.all });
    },
  });
  const askDelete = (unit: AdminUnit) => {
    remove.reset();
    confirm.ask({
      title: `Delete unit ${unit.name}?`,
      text: deleteText(unit, agency?.name ?? ""),
      confirmLabel: "Delete",
      onConfirm: () => remove.mutate(unit),
    });
  };

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

  const list = (
    <AdminList
      query={units}
      loadingLabel="Loading units"
      spinnerSize={24}
      errorText={errorText}
      emptyText={
        hasCapcodes ? (
          <Alert severity="info" action={addButton} sx={{ alignItems: "center" }}>
            <AlertTitle>No units yet</AlertTitle>
            {UNITS_GUIDE} A member of a unit sees its jobs by default, with every {agency?.code ?? ""} job one
            tap away.
          </Alert>
        ) : (
          <>
            <Typography color="text.secondary">
              No units yet. Add the agency's capcodes first, then group them into brigades or units.
            </Typography>
            {addButton}
          </>
        )
      }
      label={`Units of ${agency?.name ?? ""}`}
      rowKey={(unit) => unit.id}
      actionsAlign="right"
      columns={[
        {
          header: "Unit",
          cell: (unit) => (
            <>
              <Typography sx={{ fontWeight: 600 }}>{unit.name}</Typography>
              {unit.code ? (
                <Typography variant="body2" color="text.secondary">
                  {unit.code}
                </Typography>
              ) : null}
            </>
          ),
        },
        { header: "Place", cell: (unit) => <UnitPlace unit={unit} /> },
        { header: "Capcodes", cell: (unit) => <UnitCapcodeChips unit={unit} /> },
        { header: "Members", cell: (unit) => unit.member_count ?? 0, align: "right" },
      ]}
      actions={[
        { label: "Capcodes", ariaLabel: (unit) => `Capcodes of unit ${unit.name}`, onClick: setCapcodesOf },
        {
          label: "Edit",
          ariaLabel: (unit) => `Edit unit ${unit.name}`,
          onClick: (unit) => setForm({ unit }),
        },
        {
          label: "Delete",
          color: "error",
          ariaLabel: (unit) => `Delete unit ${unit.name}`,
          onClick: askDelete,
        },
      ]}
    />
  );
  const hasUnits = (units.data?.length ?? 0) > 0;

  // The unit dialogs show the latest copy once a change reloads the list.
  const fresh = (unit: AdminUnit | null) =>
    unit ? (units.data?.find((candidate) => candidate.id === unit.id) ?? unit) : null;

  return (
    <>
      <ListDialog
        open={agency !== null}
        title={`Units of ${agency?.name ?? ""}`}
        notice={notice}
        onNoticeClose={() => setNotice(null)}
        onClose={onClose}
      >
        {list}
        {hasUnits ? addButton : null}
      </ListDialog>
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
      {confirm.dialog({ busy: remove.isPending, error: remove.isError ? errorText(remove.error) : null })}
    </>
  );
}
