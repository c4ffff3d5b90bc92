import Box from "@mui/material/Box";
import Checkbox from "@mui/material/Checkbox";
import FormControlLabel from "@mui/material/FormControlLabel";
import FormGroup from "@mui/material/FormGroup";
import Typography from "@mui/material/Typography";
import type { OfferedUnit } from "../api/units";

/** "Kangaroo Flat · CFA · 5 km": a unit as a member chooses it, with where it is when known. */
export function unitChoiceLabel(unit: OfferedUnit, showAgency: boolean): string {
  const parts = [unit.name];
  if (showAgency) parts.push(unit.agency_name);
  if (unit.distance_km !== null && unit.distance_km !== undefined) parts.push(`${unit.distance_km} km`);
  else if (unit.suburb) parts.push(unit.suburb);
  return parts.join(" \u00b7 ");
}

/**
 * The units a member may choose (issue 26), nearest first as the server offers them, each a checkbox;
 * chosen ones not in `units` (found earlier by name) stay listed so they can be unticked.
 */
export function UnitChecklist({
  label,
  units,
  chosen,
  onChange,
  showAgency = false,
}: {
  label: string;
  units: readonly OfferedUnit[];
  chosen: readonly OfferedUnit[];
  onChange: (chosen: OfferedUnit[]) => void;
  showAgency?: boolean;
}) {
  const listed = [...chosen.filter((c) => !units.some((u) => u.id === c.id)), ...units];
  const isChosen = (unit: OfferedUnit) => chosen.some((c) => c.id === unit.id);
  const toggle = (unit: OfferedUnit) =>
    onChange(isChosen(unit) ? chosen.filter((c) => c.id !== unit.id) : [...chosen, unit]);
  return (
    <Box component="fieldset" sx={{ border: 0, p: 0, m: 0 }}>
      <Typography component="legend" variant="subtitle2" sx={{ mb: 0.5 }}>
        {label}
      </Typography>
      <FormGroup>
        {listed.map((unit) => (
          <FormControlLabel
            key={unit.id}
            control={<Checkbox checked={isChosen(unit)} onChange={() => toggle(unit)} />}
            label={unitChoiceLabel(unit, showAgency)}
          />
        ))}
      </FormGroup>
    </Box>
  );
}
