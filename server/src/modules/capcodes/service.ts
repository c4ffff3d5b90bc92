import { capcodeSchema, UNMAPPED_AGENCY } from "@turnout/domain";
import { and, asc, count, desc, eq, inArray, isNull, max, ne, or, sql } from "drizzle-orm";
import type { Database } from "../../db/client.js";
import { agencies, alertRecipients, alerts, capcodes, unitCapcodes, units } from "../../db/schema.js";
import { badRequest, conflict, notFound } from "../../errors.js";
import { requireAgency } from "../agencies/service.js";
import { unitNameKey, unitsNamed } from "../units/service.js";
import { importedText, parseCsv, UNIT_SEPARATOR } from "./csv.js";

type CapcodeRow = typeof capcodes.$inferSelect;
type AgencyRow = typeof agencies.$inferSelect;

/**
 * An optional text label as a change: `undefined` leaves it as it is, `null` clears it, a string sets
 * it. Routes turn '' into null before it gets here.
 */
type LabelChange = string | null | undefined;

export type NewCapcode = { capcode: string; agencyId: number; alias?: string | null; area?: string | null };
export type CapcodeChanges = { capcode?: string; agencyId?: number; alias?: LabelChange; area?: LabelChange };
export type BulkCapcode = { capcode: string; alias?: LabelChange; area?: LabelChange };

/** A capcode an admin has not deleted (deleted ones stay only as their alerts' history). */
const notDeleted = isNull(capcodes.deletedAt);

/** The capcode with that id. Throws 404 'Capcode not found' (also for a deleted one). */
export async function requireCapcode(db: Database, id: number): Promise<CapcodeRow> {
  const [row] = await db
    .select()
    .from(capcodes)
    .where(and(eq(capcodes.id, id), notDeleted));
  if (!row) throw notFound("Capcode not found");
  return row;
}

/** The capcodes of one agency, by capcode. Throws 404 when the agency does not exist. */
export async function listAgencyCapcodes(db: Database, agencyId: number): Promise<CapcodeRow[]> {
  await requireAgency(db, agencyId);
  return db
    .select()
    .from(capcodes)
    .where(and(eq(capcodes.agencyId, agencyId), notDeleted))
    .orderBy(asc(capcodes.capcode));
}

/**
 * Adds a capcode to an agency. With an area, alerts stored under its number before it existed (it was
 * deleted) take that area, in the same transaction. Throws 404 when the agency does not exist and 409
 * when the capcode is already known (naming the agency it is under).
 */
export async function createCapcode(db: Database, input: NewCapcode): Promise<CapcodeRow> {
  return db.transaction(async (tx) => {
    await requireAgency(tx, input.agencyId);
    await assertCapcodeFree(tx, input.capcode);
    const [row] = await tx
      .insert(capcodes)
      .values({
        capcode: input.capcode,
        agencyId: input.agencyId,
        alias: input.alias ?? null,
        area: input.area ?? null,
      })
      .returning();
    if (input.area) await applyAreaToAlerts(tx, [row!]);
    return row!;
  });
}

/**
 * Changes a capcode's number, agency, alias or area. A move to another agency takes the capcode's
 * earlier alerts with it (see moveAlertsWithCapcodes), and a given area becomes theirs too (see
 * applyAreaToAlerts), in the same transaction. Throws 404 for an unknown capcode or agency, 409 when
 * the new number is already taken.
 */
export async function updateCapcode(db: Database, id: number, changes: CapcodeChanges): Promise<CapcodeRow> {
  return db.transaction(async (tx) => {
    const current = await requireCapcode(tx, id);
    if (changes.agencyId !== undefined) await requireAgency(tx, changes.agencyId);
    if (changes.capcode !== undefined && changes.capcode !== current.capcode) {
      await assertCapcodeFree(tx, changes.capcode);
    }
    const [row] = await tx
      .update(capcodes)
      .set({
        capcode: changes.capcode,
        agencyId: changes.agencyId,
        alias: changes.alias,
        area: changes.area,
        updatedAt: new Date(),
      })
      .where(eq(capcodes.id, id))
      .returning();
    if (changes.agencyId !== undefined && changes.agencyId !== current.agencyId) {
      await moveAlertsWithCapcodes(tx, [current], changes.agencyId);
    }
    // Alerts stored by number alone carry the number they were paged to, which is the old one.
    if (changes.area !== undefined) await applyAreaToAlerts(tx, [{ ...row!, capcode: current.capcode }]);
    return row!;
  });
}

/**
 * Deletes a capcode for what comes next only: alerts it already received stay its recipients, so the
 * agencies that received them keep them in feeds and searches. The row is kept, marked deleted and
 * its number moved to `deletedCapcode` (the placeholder `#<id>` is never a capcode), so it leaves every
 * listing, a new message to the number creates a fresh capcode under UNMAPPED, and an admin may add
 * the number again. Returns the row with its number as it was. Throws 404 for an unknown capcode.
 */
export async function deleteCapcode(db: Database, id: number): Promise<CapcodeRow> {
  const [row] = await db
    .update(capcodes)
    .set({
      deletedAt: new Date(),
      deletedCapcode: capcodes.capcode,
      capcode: sql`'#' || ${capcodes.id}`,
      updatedAt: new Date(),
    })
    .where(and(eq(capcodes.id, id), notDeleted))
    .returning();
  if (!row) throw notFound("Capcode not found");
  return { ...row, capcode: row.deletedCapcode ?? row.capcode };
}

/** Sets or clears (null) a capcode's alias. Throws 404 for an unknown capcode. */
export async function setCapcodeAlias(db: Database, id: number, alias: string | null): Promise<CapcodeRow> {
  const [row] = await db
    .update(capcodes)
    .set({ alias, updatedAt: new Date() })
    .where(and(eq(capcodes.id, id), notDeleted))
    .returning();
  if (!row) throw notFound("Capcode not found");
  return row;
}

export type UnmappedCapcode = CapcodeRow & { messageCount: number; lastSeen: Date | null };

/** Capcodes still under the UNMAPPED placeholder, most recently paged first, with how often they were. */
export async function listUnmappedCapcodes(db: Database): Promise<UnmappedCapcode[]> {
  const lastSeen = max(alerts.createdAt);
  const rows = await db
    .select({ capcode: capcodes, messageCount: count(alerts.id), lastSeen })
    .from(capcodes)
    .innerJoin(agencies, eq(agencies.id, capcodes.agencyId))
    .leftJoin(alertRecipients, eq(alertRecipients.capcodeId, capcodes.id))
    .leftJoin(alerts, eq(alerts.id, alertRecipients.alertId))
    .where(and(eq(agencies.code, UNMAPPED_AGENCY.code), notDeleted))
    .groupBy(capcodes.id)
    .orderBy(sql`${lastSeen} desc nulls last`, asc(capcodes.capcode));
  return rows.map((r) => ({ ...r.capcode, messageCount: r.messageCount, lastSeen: r.lastSeen }));
}

/** A capcode's most recent alerts (any it was a recipient of), newest first. Throws 404 for an unknown capcode. */
export async function listCapcodeMessages(db: Database, id: number, limit: number) {
  await requireCapcode(db, id);
  return db
    .select({
      id: alerts.id,
      type: alerts.type,
      message: alerts.message,
      createdAt: alerts.createdAt,
      agencyId: alerts.agencyId,
    })
    .from(alertRecipients)
    .innerJoin(alerts, eq(alerts.id, alertRecipients.alertId))
    .where(eq(alertRecipients.capcodeId, id))
    .orderBy(desc(alerts.createdAt), desc(alerts.id))
    .limit(limit);
}

export type CapcodeAssignment = { capcode: CapcodeRow; agency: AgencyRow; movedAlerts: number };

/**
 * Assigns a capcode to an agency (the admin's answer to an unmapped capcode), optionally setting or
 * clearing its alias and area, and in the same transaction moves its earlier alerts to that agency and
 * gives them the area. Throws 404 for an unknown capcode or agency.
 */
export async function assignCapcode(
  db: Database,
  id: number,
  input: { agencyId: number; alias?: LabelChange; area?: LabelChange },
): Promise<CapcodeAssignment> {
  return db.transaction(async (tx) => {
    const current = await requireCapcode(tx, id);
    const agency = await requireAgency(tx, input.agencyId);
    const [capcode] = await tx
      .update(capcodes)
      .set({ agencyId: agency.id, alias: input.alias, area: input.area, updatedAt: new Date() })
      .where(eq(capcodes.id, id))
      .returning();
    const movedAlerts = await moveAlertsWithCapcodes(tx, [current], agency.id);
    if (input.area !== undefined) await applyAreaToAlerts(tx, [capcode!]);
    return { capcode: capcode!, agency, movedAlerts };
  });
}

export type BulkResult = { created: number; moved: number; updated: number; unchanged: number };

/**
 * Puts every listed capcode under one agency in one transaction: unknown ones are created, ones under
 * another agency are moved (their earlier alerts with them), and alias/area are set where given (a
 * given area also becomes their earlier alerts' area). A capcode listed twice counts once (the last
 * entry wins). Throws 404 for an unknown agency.
 */
export async function bulkAssignCapcodes(
  db: Database,
  agencyId: number,
  items: BulkCapcode[],
): Promise<BulkResult> {
  const wanted = new Map(items.map((item) => [item.capcode, item]));
  return db.transaction(async (tx) => {
    await requireAgency(tx, agencyId);
    const existing = await tx
      .select()
      .from(capcodes)
      .where(inArray(capcodes.capcode, [...wanted.keys()]));
    const byCapcode = new Map(existing.map((row) => [row.capcode, row]));
    const result: BulkResult = { created: 0, moved: 0, updated: 0, unchanged: 0 };

    const fresh = [...wanted.values()].filter((item) => !byCapcode.has(item.capcode));
    const withArea: { id: number; capcode: string; area: string | null }[] = [];
    if (fresh.length > 0) {
      const created = await tx
        .insert(capcodes)
        .values(
          fresh.map((item) => ({ capcode: item.capcode, agencyId, alias: item.alias, area: item.area })),
        )
        .returning();
      withArea.push(...created.filter((row) => row.area !== null));
      result.created = fresh.length;
    }

    const moving: CapcodeRow[] = [];
    for (const row of existing) {
      const item = wanted.get(row.capcode)!;
      const moves = row.agencyId !== agencyId;
      const relabels =
        (item.alias !== undefined && item.alias !== row.alias) ||
        (item.area !== undefined && item.area !== row.area);
      if (moves) moving.push(row);
      if (moves) result.moved += 1;
      else if (relabels) result.updated += 1;
      else result.unchanged += 1;
      if (moves || relabels) {
        await tx
          .update(capcodes)
          .set({ agencyId, alias: item.alias, area: item.area, updatedAt: new Date() })
          .where(eq(capcodes.id, row.id));
      }
      // Even when the area is the one it had: alerts stored before it was set still lack it.
      if (item.area !== undefined) withArea.push({ id: row.id, capcode: row.capcode, area: item.area });
    }
    await moveAlertsWithCapcodes(tx, moving, agencyId);
    await applyAreaToAlerts(tx, withArea);
    return result;
  });
}

/**
 * Makes earlier alerts follow capcodes that changed agency: each recipient row of those capcodes
 * takes the new agency (so the new agency's users see them), and an alert whose primary capcode is
 * one of them and whose agency is still UNMAPPED takes it too. Alerts already attributed to a real
 * agency keep that attribution. Returns how many distinct alerts changed.
 */
async function moveAlertsWithCapcodes(tx: Database, moved: CapcodeRow[], agencyId: number): Promise<number> {
  if (moved.length === 0) return 0;
  const ids = moved.map((c) => c.id);
  const recipients = await tx
    .update(alertRecipients)
    .set({ agencyId })
    .where(and(inArray(alertRecipients.capcodeId, ids), ne(alertRecipients.agencyId, agencyId)))
    .returning({ alertId: alertRecipients.alertId });

  const [unmapped] = await tx
    .select({ id: agencies.id })
    .from(agencies)
    .where(eq(agencies.code, UNMAPPED_AGENCY.code));
  let primaries: { alertId: number }[] = [];
  if (unmapped && unmapped.id !== agencyId) {
    primaries = await tx
      .update(alerts)
      .set({ agencyId })
      .where(
        and(
          eq(alerts.agencyId, unmapped.id),
          or(
            inArray(alerts.capcodeId, ids),
            // Alerts stored before the capcode row existed (or after it was re-created) match by number.
            and(
              isNull(alerts.capcodeId),
              inArray(
                alerts.capcode,
                moved.map((c) => c.capcode),
              ),
            ),
          ),
        ),
      )
      .returning({ alertId: alerts.id });
  }
  return new Set([...recipients, ...primaries].map((r) => r.alertId)).size;
}

/**
 * Gives capcodes' earlier alerts the capcode's area, as ingest gives a new alert the area of the
 * capcode it was first paged to (alerts.capcode_id, the one that also files it under an agency): an
 * alert paged to several capcodes shows its first capcode's area, so only alerts whose first capcode is
 * one of these change, and an alert that only lists one of them as a further recipient keeps its own.
 * Alerts stored under a number whose capcode row was deleted match by number, as in
 * moveAlertsWithCapcodes. Returns how many alerts changed.
 */
async function applyAreaToAlerts(
  tx: Database,
  changed: { id: number; capcode: string; area: string | null }[],
): Promise<number> {
  if (changed.length === 0) return 0;
  const values = sql.join(
    changed.map((c) => sql`(${c.id}::integer, ${c.capcode}::text, ${c.area}::text)`),
    sql`, `,
  );
  // Two statements rather than one with an OR, so each can use its index (capcode_id, and capcode_id
  // IS NULL on the same index).
  const byId = await tx.execute(sql`
    update alerts a set area = v.area
    from (values ${values}) as v(capcode_id, capcode, area)
    where a.capcode_id = v.capcode_id and a.area is distinct from v.area
    returning a.id`);
  const byNumber = await tx.execute(sql`
    update alerts a set area = v.area
    from (values ${values}) as v(capcode_id, capcode, area)
    where a.capcode_id is null and a.capcode = v.capcode and a.area is distinct from v.area
    returning a.id`);
  return rowCount(byId) + rowCount(byNumber);
}

/** Rows a `returning` statement answered: both engines give `{ rows }`. */
function rowCount(result: unknown): number {
  return (result as { rows: unknown[] }).rows.length;
}

async function assertCapcodeFree(db: Database, capcode: string): Promise<void> {
  const [clash] = await db
    .select({ code: agencies.code })
    .from(capcodes)
    .innerJoin(agencies, eq(agencies.id, capcodes.agencyId))
    .where(eq(capcodes.capcode, capcode));
  if (clash) throw conflict(`Capcode ${capcode} already exists (under ${clash.code}).`);
}

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
