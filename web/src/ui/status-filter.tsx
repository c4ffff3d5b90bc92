import MenuItem from "@mui/material/MenuItem";
import type { SxProps, Theme } from "@mui/material/styles";
import TextField from "@mui/material/TextField";

/**
 * A list's status filter: "All" (null) or one of `statuses`, each shown by `labelOf`. The select's
 * label names it for screen readers ("Status", "Status filter").
 */
export function StatusFilter<S extends string>({
  label = "Status",
  value,
  statuses,
  labelOf = (status) => status,
  onChange,
  sx,
}: {
  label?: string;
  value: S | null;
  statuses: readonly S[];
  labelOf?: (status: S) => string;
  onChange: (status: S | null) => void;
  sx?: SxProps<Theme>;
}) {
  return (
    <TextField
      select
      size="small"
      label={label}
      value={value ?? "all"}
      onChange={(event) => onChange(event.target.value === "all" ? null : (event.target.value as S))}
      sx={sx}
    >
      <MenuItem value="all">All</MenuItem>
      {statuses.map((status) => (
        <MenuItem key={status} value={status}>
          {labelOf(status)}
        </MenuItem>
      ))}
    </TextField>
  );
}
