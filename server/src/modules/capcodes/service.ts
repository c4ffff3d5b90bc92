import { UNMAPPED_AGENCY } from "@turnout/domain";
import { and, asc, count, desc, eq, inArray, isNull, max, ne, or, sql } from "drizzle-orm";
import type { Database } from "../../db/client.js";
import { agencies, alertRecipients, alerts, capcodes } from "../../db/schema.js";
import { conflict, notFound } from "../../errors.js";
import { requireAgency } from "../../shared/agencies.js";

export type CapcodeRow = typeof capcodes.$inferSelect;
export type AgencyRow = typeof agencies.$inferSelect;

/**
 * An optional text label as a change: `undefined` leaves it as it is, `null` clears it, a string sets
 * it. Routes turn '' into null before it gets here.
 */
export type LabelChange = string | null | undefined;

export type NewCapcode = { capcode: string; agencyId: number; alias?: string | null; area?: string | null };
export type CapcodeChanges = { capcode?: string; agencyId?: number; alias?: LabelChange; area?: LabelChange };
export type BulkCapcode = { capcode: string; alias?: LabelChange; area?: LabelChange };

/** A capcode an admin has not deleted (deleted ones stay only as their alerts' history). */
export const notDeleted = isNull(capcodes.deletedAt);

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
export async function moveAlertsWithCapcodes(
  tx: Database,
  moved: CapcodeRow[],
  agencyId: number,
): Promise<number> {
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
export async function applyAreaToAlerts(
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
