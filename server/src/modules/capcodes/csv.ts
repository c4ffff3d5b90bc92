/**
 * Capcode lists as CSV in PagerMon's layout, so a PagerMon site's export imports here unchanged and
 * ours opens in PagerMon and spreadsheets: PagerMon's capcode columns in its order, then Turnout's
 * `area` and `unit` (the units the capcode serves, issue 26, separated by UNIT_SEPARATOR). RFC 4180
 * quoting; CRLF line ends.
 */
export const CAPCODE_CSV_COLUMNS = [
  "id",
  "address",
  "alias",
  "agency",
  "icon",
  "color",
  "pluginconf",
  "ignore",
  "area",
  "unit",
] as const;

/** Separates a capcode's units in the `unit` column ("Kangaroo Flat; Bendigo Group"). */
export const UNIT_SEPARATOR = ";";

export type CsvRecord = { line: number; fields: string[] };

// A spreadsheet runs a cell that starts with one of these as a formula (OWASP "CSV Injection"): such
// text is written with a leading apostrophe, which the import takes off again.
const FORMULA_START = /^[=+\-@\t\r]/;

/** One CSV field: quoted when it holds a comma, quote or line break, or has edge spaces. */
export function csvField(value: string | number | null): string {
  let text = value === null ? "" : String(value);
  if (typeof value === "string" && FORMULA_START.test(text)) text = `'${text}`;
  return /[",\r\n]|^\s|\s$/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** Rows of fields as CSV text, each line ended by CRLF. */
export function toCsv(rows: (string | number | null)[][]): string {
  return rows.map((row) => `${row.map(csvField).join(",")}\r\n`).join("");
}

/** A field as imported: an apostrophe the export put before formula-like text comes off. */
export function importedText(field: string): string {
  return field.startsWith("'") && FORMULA_START.test(field.slice(1)) ? field.slice(1) : field;
}

/**
 * Parses CSV text into records with the line each starts on (1-based; a quoted field may span lines).
 * Accepts CRLF, LF, a UTF-8 byte-order mark, and quoted fields; blank lines and lines of empty fields are skipped. An unclosed
 * quote ends the text (its record is returned as read, for the caller to judge).
 */
export function parseCsv(text: string): CsvRecord[] {
  const records: CsvRecord[] = [];
  let fields: string[] = [];
  let field = "";
  let quoted = false;
  let line = 1;
  let start = 1;
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const endRecord = () => {
    fields.push(field);
    // Spreadsheets save empty rows as a line of commas: nothing to read there, like a blank line.
    if (fields.some((f) => f !== "")) records.push({ line: start, fields });
    fields = [];
    field = "";
  };
  for (; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') {
        quoted = false;
      } else {
        if (c === "\n") line++;
        field += c;
      }
    } else if (c === '"' && field === "") {
      quoted = true;
    } else if (c === ",") {
      fields.push(field);
      field = "";
    } else if (c === "\n" || c === "\r") {
      if (c === "\r" && text[i + 1] === "\n") i++;
      endRecord();
      line++;
      start = line;
    } else {
      field += c;
    }
  }
  if (field !== "" || fields.length > 0) endRecord();
  return records;
}
