import type { CapcodeFields } from "./agencies-api";

/** The server's capcode rule: 1 to 10 digits (it zero-pads shorter ones to 7). */
const CAPCODE_PATTERN = /^\d{1,10}$/;

/**
 * The bulk-add text: one capcode a line, optionally followed by alias and area, separated by commas
 * or tabs (what a spreadsheet pastes). Blank lines are skipped; each bad line is named.
 */
export function parseBulkCapcodes(text: string): { capcodes: CapcodeFields[]; errors: string[] } {
  const capcodes: CapcodeFields[] = [];
  const errors: string[] = [];
  text.split(/\r?\n/).forEach((line, index) => {
    if (!line.trim()) return;
    const [capcode = "", alias = "", area = ""] = line.split(/[,\t]/).map((part) => part.trim());
    if (!CAPCODE_PATTERN.test(capcode)) {
      errors.push(`Line ${index + 1}: '${capcode}' is not a capcode (1 to 10 digits).`);
      return;
    }
    capcodes.push({ capcode, alias: alias || null, area: area || null });
  });
  return { capcodes, errors };
}

/** True when the text is a capcode the server accepts. */
export function isCapcode(text: string): boolean {
  return CAPCODE_PATTERN.test(text.trim());
}
