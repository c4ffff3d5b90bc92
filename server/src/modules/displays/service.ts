import { randomBytes, randomInt } from "node:crypto";
import { type Position, typePresentation } from "@turnout/domain";
import { and, asc, count, desc, eq, gt, inArray, lt, sql } from "drizzle-orm";
import type { ServiceContext } from "../../context.js";
import type { Database } from "../../db/client.js";
import {
  agencies,
  alertRecipients,
  alerts,
  displayPairings,
  displays,
  jobResponses,
  unitCapcodes,
  units,
  users,
  userUnits,
} from "../../db/schema.js";
import { AppError, badRequest, notFound, unauthorized } from "../../errors.js";
import { jobsOf } from "../../shared/alerts/jobs.js";
import { positionsOf } from "../../shared/alerts/positions.js";
import { displayBySecret, displaySecretHash } from "../../shared/display-credentials.js";

/** A pairing code lives this long on the screen. */
export const PAIRING_TTL_MS = 10 * 60_000;
/** Screens waiting to be paired at once; more are refused (each is a row anyone may create). */
export const PAIRINGS_WAITING_MAX = 200;
/** Letters and digits a code is made of: none that reads as another (0/O, 1/I/L). */
const CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789";
export const CODE_LENGTH = 6;
/** How far back the board reads its unit's jobs. */
export const BOARD_HOURS = 24;
/** Jobs the board shows: the current one and the previous ones. */
export const BOARD_JOBS = 6;
const hash = displaySecretHash;

/** A new pairing code of CODE_LENGTH characters. */
export function newPairingCode(): string {
  let code = "";
  for (let i = 0; i < CODE_LENGTH; i++) code += CODE_ALPHABET[randomInt(CODE_ALPHABET.length)];
  return code;
}

/** A code as typed by an admin: case, spaces and dashes do not matter. */
export function normaliseCode(text: string): string {
  return text.toUpperCase().replace(/[\s-]/g, "");
}

/**
 * A screen asks to be paired: a new code to show and the secret it keeps (its token once paired).
 * Expired codes are removed first; 429 when PAIRINGS_WAITING_MAX screens are waiting already.
 */
export async function startPairing(db: Database, now = new Date()) {
  await db.delete(displayPairings).where(lt(displayPairings.expiresAt, now));
  const [{ waiting }] = (await db.select({ waiting: count() }).from(displayPairings)) as [
    { waiting: number },
  ];
  if (Number(waiting) >= PAIRINGS_WAITING_MAX) {
    throw new AppError(
      429,
      "rate_limited",
      "Too many screens are waiting to be paired. Try again in a few minutes.",
    );
  }
  const secret = randomBytes(32).toString("base64url");
  const expiresAt = new Date(now.getTime() + PAIRING_TTL_MS);
  for (let attempt = 0; attempt < 5; attempt++) {
    const code = newPairingCode();
    const inserted = await db
      .insert(displayPairings)
      .values({ secretHash: hash(secret), code, expiresAt })
      .onConflictDoNothing()
      .returning({ code: displayPairings.code });
    if (inserted.length) return { secret, code, expires_at: expiresAt.toISOString() };
  }
  throw new AppError(429, "rate_limited", "No pairing code is free right now. Try again.");
}

export type PairingState = { status: "waiting"; expires_at: string } | { status: "paired"; display: string };

/** What a screen's secret is now: waiting with its code, paired with a display, or 401 when neither. */
export async function pairingState(db: Database, secret: string, now = new Date()): Promise<PairingState> {
  const display = await displayBySecret(db, secret);
  if (display) return { status: "paired", display: display.name };
  const [pairing] = await db
    .select()
    .from(displayPairings)
    .where(and(eq(displayPairings.secretHash, hash(secret)), gt(displayPairings.expiresAt, now)));
  if (!pairing) throw unauthorized("This screen's pairing code has expired. A new one is shown.");
  return { status: "waiting", expires_at: pairing.expiresAt.toISOString() };
}

// ---------------------------------------------------------------------------------------------------
// Admin
// ---------------------------------------------------------------------------------------------------

const presentDisplay = (d: typeof displays.$inferSelect, unitName: string | null) => ({
  id: d.id,
  unit_id: d.unitId,
  unit_name: unitName,
  name: d.name,
  idle_minutes: d.idleMinutes,
  paired: d.tokenHash !== null,
  paired_at: d.pairedAt?.toISOString() ?? null,
  last_seen_at: d.lastSeenAt?.toISOString() ?? null,
});

export async function listDisplays(db: Database) {
  const rows = await db
    .select({ display: displays, unitName: units.name })
    .from(displays)
    .leftJoin(units, eq(units.id, displays.unitId))
    .orderBy(asc(displays.name), asc(displays.id));
  return rows.map((r) => presentDisplay(r.display, r.unitName));
}

/** Every unit a display can be made for, with its agency's name. */
export async function unitsForDisplays(db: Database) {
  const rows = await db
    .select({ id: units.id, name: units.name, agency: agencies.name })
    .from(units)
    .innerJoin(agencies, eq(agencies.id, units.agencyId))
    .orderBy(asc(agencies.name), asc(units.name));
  return rows.map((r) => ({ id: r.id, name: r.name, agency_name: r.agency }));
}

export async function createDisplay(
  db: Database,
  adminId: number,
  input: { unit_id: number; name: string; idle_minutes?: number },
) {
  const [unit] = await db.select().from(units).where(eq(units.id, input.unit_id));
  if (!unit) throw badRequest("There is no such unit.", { field: "unit_id" });
  const [display] = await db
    .insert(displays)
    .values({
      unitId: unit.id,
      name: input.name.trim(),
      idleMinutes: input.idle_minutes ?? 30,
      createdBy: adminId,
    })
    .returning();
  return presentDisplay(display!, unit.name);
}

/**
 * Pairs the screen showing `code` with the display: the screen's secret becomes the display's token
 * (a screen paired before is signed out), and the code is used up. 400 when no screen shows it.
 */
export async function pairDisplay(ctx: ServiceContext, displayId: number, code: string, now = new Date()) {
  const { db } = ctx;
  const [display] = await db.select().from(displays).where(eq(displays.id, displayId));
  if (!display) throw notFound("There is no such display.");
  const typed = normaliseCode(code);
  const paired = await db.transaction(async (tx) => {
    const [pairing] = await tx
      .delete(displayPairings)
      .where(and(eq(displayPairings.code, typed), gt(displayPairings.expiresAt, now)))
      .returning();
    if (!pairing) return null;
    const [row] = await tx
      .update(displays)
      .set({ tokenHash: pairing.secretHash, pairedAt: now })
      .where(eq(displays.id, displayId))
      .returning();
    return row!;
  });
  if (!paired) {
    throw badRequest("No screen shows that code. Codes work once and expire after 10 minutes.", {
      field: "code",
    });
  }
  // The screen paired before (if any) is signed out at once, the new one stays.
  ctx.live.displaysSignedOut([paired.id], paired.tokenHash ?? undefined);
  const [unit] = await db.select({ name: units.name }).from(units).where(eq(units.id, paired.unitId));
  return presentDisplay(paired, unit?.name ?? null);
}

/**
 * Signs the display's screen out (it shows a new pairing code), or removes the display; its screen's
 * live channel closes at once. 404 when there is no such display.
 */
export async function unpairDisplay(ctx: ServiceContext, displayId: number, remove: boolean) {
  const { db } = ctx;
  const rows = remove
    ? await db.delete(displays).where(eq(displays.id, displayId)).returning({ id: displays.id })
    : await db
        .update(displays)
        .set({ tokenHash: null, pairedAt: null })
        .where(eq(displays.id, displayId))
        .returning({ id: displays.id });
  if (rows.length === 0) throw notFound("There is no such display.");
  ctx.live.displaysSignedOut([displayId]);
}

// ---------------------------------------------------------------------------------------------------
// The board
// ---------------------------------------------------------------------------------------------------

/**
 * What the board of a display shows: its unit and station, the unit's jobs of the last BOARD_HOURS
 * (newest first, machine pages left out) with their positions, and for each who is responding: names
 * only of the unit's own members (first name and initial), everyone else counted.
 */
export async function boardOf(db: Database, display: typeof displays.$inferSelect, now = new Date()) {
  const [unit] = await db.select().from(units).where(eq(units.id, display.unitId));
  if (!unit) throw unauthorized("This screen's unit no longer exists.");
  const since = new Date(now.getTime() - BOARD_HOURS * 3_600_000);
  const paged = await db
    .selectDistinct({ id: alerts.id, sentAt: alerts.sentAt })
    .from(alerts)
    .innerJoin(alertRecipients, eq(alertRecipients.alertId, alerts.id))
    .innerJoin(unitCapcodes, eq(unitCapcodes.capcodeId, alertRecipients.capcodeId))
    .where(and(eq(unitCapcodes.unitId, unit.id), gt(alerts.sentAt, since), eq(alerts.isMachine, false)))
    .orderBy(desc(alerts.sentAt), desc(alerts.id))
    .limit(BOARD_JOBS * 5);
  const ids = paged.map((p) => p.id);
  const jobs = await jobsOf(db, ids);
  // One entry per job: its newest page.
  const seen = new Set<number>();
  const newest = ids.filter((id) => {
    const job = jobs.get(id)!;
    if (seen.has(job.jobAlertId)) return false;
    seen.add(job.jobAlertId);
    return true;
  });
  const shown = newest.slice(0, BOARD_JOBS);
  const rows = shown.length ? await db.select().from(alerts).where(inArray(alerts.id, shown)) : [];
  const byId = new Map(rows.map((r) => [r.id, r]));
  const positions = await positionsOf(db, shown);
  const jobIds = shown.map((id) => jobs.get(id)!.jobAlertId);
  const answers = jobIds.length
    ? await db
        .select({
          jobAlertId: jobResponses.jobAlertId,
          userId: jobResponses.userId,
          status: jobResponses.status,
          etaMinutes: jobResponses.etaMinutes,
          answeredAt: jobResponses.answeredAt,
          firstName: users.firstName,
          lastName: users.lastName,
          inUnit: sql<boolean>`exists (select 1 from ${userUnits} where ${userUnits.userId} = ${jobResponses.userId} and ${userUnits.unitId} = ${unit.id})`,
        })
        .from(jobResponses)
        .innerJoin(users, eq(users.id, jobResponses.userId))
        .where(inArray(jobResponses.jobAlertId, jobIds))
        .orderBy(asc(jobResponses.answeredAt), asc(jobResponses.userId))
    : [];
  return {
    display: { id: display.id, name: display.name, idle_minutes: display.idleMinutes },
    unit: {
      id: unit.id,
      name: unit.name,
      station:
        unit.latitude !== null && unit.longitude !== null
          ? { latitude: unit.latitude, longitude: unit.longitude }
          : null,
    },
    server_time: now.toISOString(),
    jobs: shown.map((id) => {
      const alert = byId.get(id)!;
      const job = jobs.get(id)!;
      const mine = answers.filter((a) => Number(a.jobAlertId) === job.jobAlertId);
      const responding = mine.filter((a) => a.status === "responding");
      const named = responding.filter((a) => a.inUnit);
      return {
        id: alert.id,
        job_alert_id: job.jobAlertId,
        type: alert.type,
        type_label: typePresentation(alert.type).label,
        message: alert.message,
        primary_address: alert.primaryAddress,
        job_number: alert.jobNumber,
        sent_at: alert.sentAt.toISOString(),
        started_at: job.startedAt.toISOString(),
        position: (positions.get(id) ?? null) as Position | null,
        responders: named.map((a) => ({
          name: `${a.firstName} ${a.lastName.slice(0, 1)}.`.trim(),
          eta_minutes: a.etaMinutes,
          answered_at: a.answeredAt.toISOString(),
        })),
        others_responding: responding.length - named.length,
        not_available: mine.length - responding.length,
      };
    }),
  };
}
