// The capcode list as a file: exported with agency and units, imported (CSV) in chunks with a result per line.
import { capcodeSchema, UNMAPPED_AGENCY } from "@turnout/domain";
import { and, asc, eq, inArray, ne } from "drizzle-orm";
import type { Database } from "../../db/client.js";
import { agencies, capcodes, unitCapcodes, units } from "../../db/schema.js";
import { badRequest } from "../../errors.js";
import { unitNameKey, unitsNamed } from "../../shared/unit-places.js";
import { importedText, parseCsv, UNIT_SEPARATOR } from "./csv.js";
import {
  type AgencyRow,
  applyAreaToAlerts,
  type CapcodeRow,
  type LabelChange,
  moveAlertsWithCapcodes,
  notDeleted,
} from "./service.js";

export type CapcodeExportRow = CapcodeRow & { agencyCode: string; units: string[] };

/** Every mapped capcode (UNMAPPED and deleted ones left out) with its agency's code and its units' names, by capcode. */
export async function listCapcodesForExport(db: Database): Promise<CapcodeExportRow[]> {
  const rows = await db
    .select({ capcode: capcodes, agencyCode: agencies.code })
    .from(capcodes)
    .innerJoin(agencies, eq(agencies.id, capcodes.agencyId))
    .where(and(ne(agencies.code, UNMAPPED_AGENCY.code), notDeleted))
    .orderBy(asc(capcodes.capcode));
  const memberships = await db
    .select({ capcodeId: unitCapcodes.capcodeId, name: units.name })
    .from(unitCapcodes)
    .innerJoin(units, eq(units.id, unitCapcodes.unitId))
    .orderBy(asc(units.name));
  const unitsOf = new Map<number, string[]>();
  for (const m of memberships) unitsOf.set(m.capcodeId, [...(unitsOf.get(m.capcodeId) ?? []), m.name]);
  return rows.map((r) => ({
    ...r.capcode,
    agencyCode: r.agencyCode,
    units: unitsOf.get(r.capcode.id) ?? [],
  }));
}

/** A capcode's mapping as an import reports it: the agency by code; its units' names when the import sets them. */
export type CapcodeMapping = { agency: string; alias: string | null; area: string | null; units?: string[] };
export type ImportResult = {
  applied: boolean;
  created: ({ line: number; capcode: string } & CapcodeMapping)[];
  changed: { line: number; capcode: string; from: CapcodeMapping; to: CapcodeMapping }[];
  unchanged: number;
  refused: { line: number; reason: string }[];
  /** Units the import creates (issue 26): named in the `unit` column, or by aliases. */
  units_created: { agency: string; name: string }[];
};

/** Most units one capcode line may name. */
const UNITS_PER_LINE = 20;

const LABEL_MAX = 100;
/** Rows per statement when an import reads or writes many capcodes (PostgreSQL takes 65535 parameters). */
const IMPORT_CHUNK = 1000;

type ImportLine = {
  line: number;
  capcode: string;
  agency: AgencyRow;
  alias: LabelChange;
  area: LabelChange;
  /** The units the line names: undefined without a `unit` column (and not from aliases). */
  units?: string[];
};

/**
 * Imports a capcode list in PagerMon's CSV layout (see csv.ts): a header row naming at least
 * `address` and `agency` (`alias` and `area` are read when present, other columns ignored), then one
 * capcode per line, its agency named by code or name (any case). Unknown capcodes are created, known
 * ones take the line's agency, alias and area (a missing column leaves that label as it is, an empty
 * cell clears it); a line with an unknown agency, UNMAPPED, a bad capcode or a capcode listed earlier
 * is refused, never guessed at (agencies are never created). With `dryRun` nothing is written; else
 * the accepted lines are written in one transaction, and capcodes that change agency take their
 * earlier alerts still under UNMAPPED with them, as assignCapcode does. Units (issue 26): a `unit`
 * column names each capcode's units (separated by UNIT_SEPARATOR; an empty cell takes it out of every
 * unit), or, without one and with `unitsFromAlias`, each capcode joins the unit its alias names; units
 * missing in the line's agency are created. Throws 400 when the text has no header row naming address
 * and agency.
 */
export async function importCapcodes(
  db: Database,
  csv: string,
  dryRun: boolean,
  options: { unitsFromAlias?: boolean } = {},
): Promise<ImportResult> {
  const [header, ...records] = parseCsv(csv);
  const columns = (header?.fields ?? []).map((f) => f.trim().toLowerCase());
  const column = (name: string) => columns.indexOf(name);
  const [addressAt, agencyAt, aliasAt, areaAt, unitAt] = ["address", "agency", "alias", "area", "unit"].map(
    column,
  );
  const unitsFromAlias = unitAt === -1 && options.unitsFromAlias === true;
  if (addressAt === -1 || agencyAt === -1) {
    throw badRequest(
      "The first row must name the columns, at least address and agency (as PagerMon's capcode export does).",
    );
  }
  return db.transaction(async (tx) => {
    const allAgencies = await tx.select().from(agencies);
    const result: ImportResult = {
      applied: false,
      created: [],
      changed: [],
      unchanged: 0,
      refused: [],
      units_created: [],
    };
    const lines: ImportLine[] = [];
    const seen = new Map<string, number>();
    for (const { line, fields } of records) {
      const cell = (at: number | undefined) =>
        at === undefined || at === -1 ? undefined : importedText((fields[at] ?? "").trim()).trim();
      const parsed = readImportLine(allAgencies, {
        address: cell(addressAt) ?? "",
        agency: cell(agencyAt) ?? "",
        alias: cell(aliasAt),
        area: cell(areaAt),
        units: unitsFromAlias ? (cell(aliasAt) ?? "") : cell(unitAt),
      });
      if (typeof parsed === "string") {
        result.refused.push({ line, reason: parsed });
        continue;
      }
      const earlier = seen.get(parsed.capcode);
      if (earlier !== undefined) {
        result.refused.push({
          line,
          reason: `capcode ${parsed.capcode} is already listed on line ${earlier}`,
        });
        continue;
      }
      seen.set(parsed.capcode, line);
      lines.push({ line, ...parsed });
    }

    const byCapcode = new Map<string, CapcodeRow>();
    for (let i = 0; i < lines.length; i += IMPORT_CHUNK) {
      const numbers = lines.slice(i, i + IMPORT_CHUNK).map((l) => l.capcode);
      const rows = await tx
        .select()
        .from(capcodes)
        .where(and(inArray(capcodes.capcode, numbers), notDeleted));
      for (const row of rows) byCapcode.set(row.capcode, row);
    }
    const codeOf = new Map(allAgencies.map((a) => [a.id, a.code]));
    const unitsNow = await unitNamesOf(
      tx,
      [...byCapcode.values()].map((r) => r.id),
    );
    const fresh: ImportLine[] = [];
    const changed: { item: ImportLine; row: CapcodeRow }[] = [];
    for (const item of lines) {
      const row = byCapcode.get(item.capcode);
      // A capcode moving agency leaves its old agency's units (a trigger); aliases add to the rest.
      const current = row && row.agencyId === item.agency.id ? (unitsNow.get(row.id) ?? []) : [];
      if (item.units !== undefined && unitsFromAlias) item.units = unionByName(current, item.units);
      const to = {
        agency: item.agency.code,
        alias: item.alias === undefined ? (row?.alias ?? null) : item.alias,
        area: item.area === undefined ? (row?.area ?? null) : item.area,
        ...(item.units === undefined ? {} : { units: item.units }),
      };
      if (!row) {
        fresh.push(item);
        result.created.push({ line: item.line, capcode: item.capcode, ...to });
        continue;
      }
      const from = {
        agency: codeOf.get(row.agencyId) ?? "",
        alias: row.alias,
        area: row.area,
        ...(item.units === undefined ? {} : { units: unitsNow.get(row.id) ?? [] }),
      };
      const sameUnits = item.units === undefined || sameNames(current, item.units);
      if (from.agency === to.agency && from.alias === to.alias && from.area === to.area && sameUnits) {
        result.unchanged += 1;
        continue;
      }
      changed.push({ item, row });
      result.changed.push({ line: item.line, capcode: item.capcode, from, to });
    }
    const withUnits = [...fresh, ...changed.map((c) => c.item)].filter((l) => l.units !== undefined);
    const named = await unitsNamed(
      tx,
      withUnits.flatMap((l) => l.units!.map((name) => ({ agencyId: l.agency.id, name }))),
      !dryRun,
    );
    result.units_created = named.created.map((u) => ({ agency: codeOf.get(u.agencyId) ?? "", name: u.name }));
    if (dryRun || (fresh.length === 0 && changed.length === 0)) return result;

    const withArea: { id: number; capcode: string; area: string | null }[] = [];
    const moving = new Map<number, CapcodeRow[]>();
    const move = (agencyId: number, row: CapcodeRow) =>
      moving.set(agencyId, [...(moving.get(agencyId) ?? []), row]);
    for (let i = 0; i < fresh.length; i += IMPORT_CHUNK) {
      const created = await tx
        .insert(capcodes)
        .values(
          fresh.slice(i, i + IMPORT_CHUNK).map((item) => ({
            capcode: item.capcode,
            agencyId: item.agency.id,
            alias: item.alias ?? null,
            area: item.area ?? null,
          })),
        )
        .returning();
      for (const row of created) {
        // Alerts stored under the number before any capcode row had it (see moveAlertsWithCapcodes).
        move(row.agencyId, row);
        if (row.area !== null) withArea.push(row);
      }
    }
    for (const { item, row } of changed) {
      await tx
        .update(capcodes)
        .set({ agencyId: item.agency.id, alias: item.alias, area: item.area, updatedAt: new Date() })
        .where(eq(capcodes.id, row.id));
      if (row.agencyId !== item.agency.id) move(item.agency.id, row);
      if (item.area !== undefined) withArea.push({ id: row.id, capcode: row.capcode, area: item.area });
    }
    for (const [agencyId, rows] of moving) await moveAlertsWithCapcodes(tx, rows, agencyId);
    await applyAreaToAlerts(tx, withArea);
    await writeImportedUnits(tx, withUnits, named.ids);
    result.applied = true;
    return result;
  });
}

/** Makes each line's units (already joined with the current ones for aliases) its capcode's units. */
async function writeImportedUnits(
  tx: Database,
  lines: ImportLine[],
  unitIds: ReadonlyMap<string, number>,
): Promise<void> {
  for (let i = 0; i < lines.length; i += IMPORT_CHUNK) {
    const chunk = lines.slice(i, i + IMPORT_CHUNK);
    const rows = await tx
      .select({ id: capcodes.id, capcode: capcodes.capcode })
      .from(capcodes)
      .where(
        and(
          inArray(
            capcodes.capcode,
            chunk.map((l) => l.capcode),
          ),
          notDeleted,
        ),
      );
    const idOf = new Map(rows.map((r) => [r.capcode, r.id]));
    if (rows.length) await tx.delete(unitCapcodes).where(inArray(unitCapcodes.capcodeId, [...idOf.values()]));
    const values = chunk.flatMap((l) =>
      l.units!.flatMap((name) => {
        const unitId = unitIds.get(unitNameKey(l.agency.id, name));
        const capcodeId = idOf.get(l.capcode);
        return unitId !== undefined && capcodeId !== undefined ? [{ unitId, capcodeId }] : [];
      }),
    );
    if (values.length) await tx.insert(unitCapcodes).values(values).onConflictDoNothing();
  }
}

/** The names of each capcode's units, by name. */
async function unitNamesOf(tx: Database, capcodeIds: number[]): Promise<Map<number, string[]>> {
  const byCapcode = new Map<number, string[]>();
  for (let i = 0; i < capcodeIds.length; i += IMPORT_CHUNK) {
    const rows = await tx
      .select({ capcodeId: unitCapcodes.capcodeId, name: units.name })
      .from(unitCapcodes)
      .innerJoin(units, eq(units.id, unitCapcodes.unitId))
      .where(inArray(unitCapcodes.capcodeId, capcodeIds.slice(i, i + IMPORT_CHUNK)))
      .orderBy(asc(units.name));
    for (const r of rows) byCapcode.set(r.capcodeId, [...(byCapcode.get(r.capcodeId) ?? []), r.name]);
  }
  return byCapcode;
}

/** Whether two lists hold the same names, case aside. */
const sameNames = (a: readonly string[], b: readonly string[]) =>
  JSON.stringify(a.map((n) => n.toLowerCase()).sort()) ===
  JSON.stringify(b.map((n) => n.toLowerCase()).sort());

/** `current` and the names of `more` not already in it (case aside). */
function unionByName(current: readonly string[], more: readonly string[]): string[] {
  const seen = new Set(current.map((n) => n.toLowerCase()));
  return [...current, ...more.filter((n) => !seen.has(n.toLowerCase()))];
}

/** One CSV line's capcode, agency and labels, or why it is refused. */
function readImportLine(
  all: AgencyRow[],
  cells: { address: string; agency: string; alias?: string; area?: string; units?: string },
): Omit<ImportLine, "line"> | string {
  if (/[%_*?]/.test(cells.address)) {
    return `address ${cells.address}: PagerMon wildcards (% and _) are not capcodes; list each capcode`;
  }
  const capcode = capcodeSchema.safeParse(cells.address);
  if (!capcode.success) return `address '${cells.address}': a capcode is 1 to 10 digits`;
  if (cells.agency === "") return "agency: empty (name the agency by code or name)";
  const wanted = cells.agency.toLowerCase();
  const byCode = all.filter((a) => a.code.toLowerCase() === wanted);
  const matches = byCode.length > 0 ? byCode : all.filter((a) => a.name.toLowerCase() === wanted);
  if (matches.length === 0) return `agency '${cells.agency}': no agency has that code or name (add it first)`;
  if (matches.length > 1) return `agency '${cells.agency}': several agencies have that name; use its code`;
  const agency = matches[0]!;
  if (agency.code === UNMAPPED_AGENCY.code) {
    return `agency ${agency.code}: holds capcodes not yet mapped; name the agency the capcode belongs to`;
  }
  for (const [name, value] of [
    ["alias", cells.alias],
    ["area", cells.area],
  ] as const) {
    if (value !== undefined && value.length > LABEL_MAX)
      return `${name}: must be at most ${LABEL_MAX} characters`;
  }
  const label = (v: string | undefined) => (v === undefined ? undefined : v || null);
  const unitNames =
    cells.units === undefined
      ? undefined
      : [
          ...new Map(
            cells.units
              .split(UNIT_SEPARATOR)
              .map((n) => n.trim())
              .filter((n) => n !== "")
              .map((n) => [n.toLowerCase(), n]),
          ).values(),
        ];
  if (unitNames && unitNames.length > UNITS_PER_LINE)
    return `unit: at most ${UNITS_PER_LINE} units per capcode`;
  if (unitNames?.some((n) => n.length > LABEL_MAX))
    return `unit: a unit's name must be at most ${LABEL_MAX} characters`;
  return {
    capcode: capcode.data,
    agency,
    alias: label(cells.alias),
    area: label(cells.area),
    ...(unitNames ? { units: unitNames } : {}),
  };
}
