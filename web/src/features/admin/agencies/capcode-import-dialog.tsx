import Alert from "@mui/material/Alert";
import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import Checkbox from "@mui/material/Checkbox";
import Dialog from "@mui/material/Dialog";
import DialogActions from "@mui/material/DialogActions";
import DialogContent from "@mui/material/DialogContent";
import DialogTitle from "@mui/material/DialogTitle";
import FormControlLabel from "@mui/material/FormControlLabel";
import List from "@mui/material/List";
import ListItem from "@mui/material/ListItem";
import ListItemText from "@mui/material/ListItemText";
import TextField from "@mui/material/TextField";
import Typography from "@mui/material/Typography";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type ChangeEvent, useEffect, useId, useState } from "react";
import { alertCacheKeys } from "../../../api/alerts";
import { agenciesApi, type ImportResult } from "./agencies-api";
import { errorText } from "./error-text";
import { agencyAdminKeys } from "./queries";

/** The server's limit on the CSV text. */
const CSV_MAX_BYTES = 1024 * 1024;

/** The file's text (FileReader rather than Blob.text(), which older browsers lack). */
function readText(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result ?? ""));
    reader.onerror = () => reject(reader.error);
    reader.readAsText(file);
  });
}

/**
 * The column names of a CSV's header row (its first line with any text), trimmed and lower-cased as
 * the server reads them: enough to tell whether it has a `unit` or `alias` column.
 */
export function csvColumns(csv: string): string[] {
  const header = csv
    .replace(/^\uFEFF/, "")
    .split(/\r?\n/)
    .find((line) => line.replace(/[",\s]/g, "") !== "");
  return (header ?? "").split(",").map((name) => name.trim().replace(/^"|"$/g, "").trim().toLowerCase());
}

type Mapping = {
  agency?: string | null;
  alias?: string | null;
  area?: string | null;
  units?: string[] | null;
};

function describe(mapping: Mapping): string {
  const parts = [mapping.agency ?? "?"];
  if (mapping.alias) parts.push(mapping.alias);
  if (mapping.area) parts.push(mapping.area);
  // Only when the import sets units: an empty list takes the capcode out of every unit.
  if (mapping.units) parts.push(mapping.units.length > 0 ? `units: ${mapping.units.join(", ")}` : "no unit");
  return parts.join(" · ");
}

function ResultSection({ title, lines }: { title: string; lines: Array<{ key: string; text: string }> }) {
  if (lines.length === 0) return null;
  return (
    <Box component="section" aria-label={title}>
      <Typography variant="subtitle2">{`${title} (${lines.length})`}</Typography>
      <List dense disablePadding>
        {lines.map((line) => (
          <ListItem key={line.key} disableGutters>
            <ListItemText primary={line.text} />
          </ListItem>
        ))}
      </List>
    </Box>
  );
}

/** What the import did or would do, line by line. */
function ImportSummary({ result }: { result: ImportResult }) {
  return (
    <Box sx={{ display: "flex", flexDirection: "column", gap: 1 }}>
      <Alert severity={result.applied ? "success" : "info"} role="status">
        {result.applied
          ? `Imported: ${result.created.length} created, ${result.changed.length} changed, ${result.unchanged} unchanged, ${result.refused.length} refused.`
          : `Preview (nothing saved yet): ${result.created.length} to create, ${result.changed.length} to change, ${result.unchanged} unchanged, ${result.refused.length} refused.`}
        {result.units_created.length > 0
          ? ` ${result.units_created.length} new unit${result.units_created.length === 1 ? "" : "s"}.`
          : ""}
      </Alert>
      <ResultSection
        title={result.applied ? "Units created" : "Units to create"}
        lines={result.units_created.map((unit) => ({
          key: `u${unit.agency}:${unit.name}`,
          text: `${unit.agency} · ${unit.name}`,
        }))}
      />
      <ResultSection
        title={result.applied ? "Created" : "Will be created"}
        lines={result.created.map((row) => ({
          key: `c${row.line}`,
          text: `Line ${row.line}: ${row.capcode} → ${describe(row)}`,
        }))}
      />
      <ResultSection
        title={result.applied ? "Changed" : "Will be changed"}
        lines={result.changed.map((row) => ({
          key: `m${row.line}`,
          text: `Line ${row.line}: ${row.capcode}: ${describe(row.from)} → ${describe(row.to)}`,
        }))}
      />
      <ResultSection
        title="Refused"
        lines={result.refused.map((row) => ({
          key: `r${row.line}`,
          text: `Line ${row.line}: ${row.reason}`,
        }))}
      />
    </Box>
  );
}

/**
 * Import capcodes from PagerMon's capcode CSV (address, alias, agency, … ; Turnout's export adds
 * area and unit): a dry run first lists what will be created, changed and refused, and the units it
 * creates, then 'Apply' saves it. A CSV without a `unit` column may put each capcode in the unit its
 * alias names (PagerMon aliases are often the brigade's name).
 */
export function CapcodeImportDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const titleId = useId();
  const queryClient = useQueryClient();
  const [csv, setCsv] = useState("");
  const [fileError, setFileError] = useState<string | null>(null);
  const [result, setResult] = useState<ImportResult | null>(null);
  const [aliasUnits, setAliasUnits] = useState(false);
  /** What the preview was made from: applying anything else would apply something unseen. */
  const [previewed, setPreviewed] = useState<{ text: string; unitsFromAlias: boolean } | null>(null);

  const run = useMutation({
    mutationFn: ({
      text,
      dryRun,
      unitsFromAlias,
    }: {
      text: string;
      dryRun: boolean;
      unitsFromAlias: boolean;
    }) => agenciesApi.importCapcodes(text, dryRun, unitsFromAlias),
    onSuccess: (reply, { text, dryRun, unitsFromAlias }) => {
      setResult(reply);
      setPreviewed(dryRun ? { text, unitsFromAlias } : null);
      if (!dryRun) {
        void queryClient.invalidateQueries({ queryKey: agencyAdminKeys.all });
        void queryClient.invalidateQueries({ queryKey: alertCacheKeys.feeds() });
      }
    },
  });
  const { reset } = run;
  useEffect(() => {
    if (!open) return;
    setCsv("");
    setAliasUnits(false);
    setFileError(null);
    setResult(null);
    setPreviewed(null);
    reset();
  }, [open, reset]);

  const handleText = (text: string) => {
    setCsv(text);
    setResult(null);
    setPreviewed(null);
  };

  const handleFile = async (event: ChangeEvent<HTMLInputElement>) => {
    const file = event.target.files?.[0];
    event.target.value = "";
    if (!file) return;
    if (file.size > CSV_MAX_BYTES) {
      setFileError("The CSV must be at most 1 MB.");
      return;
    }
    try {
      handleText(await readText(file));
      setFileError(null);
    } catch {
      setFileError("The file could not be read. Please choose it again.");
    }
  };

  const columns = csvColumns(csv);
  // The option only means something for a CSV with aliases and without its own unit column.
  const offerAliasUnits = csv.trim() !== "" && columns.includes("alias") && !columns.includes("unit");
  const unitsFromAlias = offerAliasUnits && aliasUnits;
  const canApply =
    previewed !== null &&
    previewed.text === csv &&
    previewed.unitsFromAlias === unitsFromAlias &&
    result !== null &&
    !result.applied;
  const hasChanges = result !== null && result.created.length + result.changed.length > 0;

  return (
    <Dialog open={open} onClose={onClose} aria-labelledby={titleId} maxWidth="md" fullWidth>
      <DialogTitle id={titleId}>Import Capcodes (PagerMon CSV)</DialogTitle>
      <DialogContent sx={{ display: "flex", flexDirection: "column", gap: 2 }}>
        <Typography variant="body2" color="text.secondary">
          PagerMon's capcode export works as it is: a header row, then address, alias, agency and its other
          columns; area and unit columns are read when present (a capcode's units separated by ";"). Agencies
          are named by code or name and must exist already; missing units are created.
        </Typography>
        <Box>
          <Button component="label" variant="outlined">
            Choose CSV file
            <input
              type="file"
              accept=".csv,text/csv"
              onChange={(event) => void handleFile(event)}
              style={{ position: "absolute", width: 1, height: 1, opacity: 0, overflow: "hidden" }}
            />
          </Button>
        </Box>
        <TextField
          label="CSV"
          value={csv}
          onChange={(event) => handleText(event.target.value)}
          multiline
          minRows={4}
          maxRows={12}
          fullWidth
          slotProps={{ htmlInput: { spellCheck: false, style: { fontFamily: "monospace" } } }}
        />
        {offerAliasUnits ? (
          <FormControlLabel
            control={
              <Checkbox
                checked={aliasUnits}
                onChange={(event) => {
                  setAliasUnits(event.target.checked);
                  setResult(null);
                  setPreviewed(null);
                }}
              />
            }
            label="Capcodes join the unit their alias names (units missing in the agency are created)"
          />
        ) : null}
        {fileError || run.isError ? (
          <Alert severity="error" role="alert">
            {fileError ?? errorText(run.error)}
          </Alert>
        ) : null}
        {result ? <ImportSummary result={result} /> : null}
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>Close</Button>
        <Button
          variant="outlined"
          disabled={!csv.trim() || run.isPending}
          onClick={() => run.mutate({ text: csv, dryRun: true, unitsFromAlias })}
        >
          Preview
        </Button>
        <Button
          variant="contained"
          disabled={!canApply || !hasChanges || run.isPending}
          onClick={() => run.mutate({ text: csv, dryRun: false, unitsFromAlias })}
        >
          Apply
        </Button>
      </DialogActions>
    </Dialog>
  );
}
