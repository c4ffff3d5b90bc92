// The live channel's rooms (SPEC 7) and who may be in them: read by the gateway (live/gateway.ts) when
// a socket joins and when a user's access changes.
import type { FeedView } from "@turnout/domain";
import { and, eq, inArray, or, sql } from "drizzle-orm";
import type { FastifyInstance } from "fastify";
import type { Database } from "../db/client.js";
import { agencies, alertRecipients, alerts, unitCapcodes, userAgencies, users } from "../db/schema.js";
import type { Actor } from "../shared/guard.js";
import { hiddenAgencyIds } from "../shared/hidden-agencies.js";
import { unitsOfUser, unitViewOf } from "../shared/units.js";

export const agencyRoom = (id: number) => `agency:${id}`;
/** A unit's room (issue 26): its alerts, for pages in the unit view. */
export const unitRoom = (id: number) => `unit:${id}`;
export const isFeedRoom = (room: string) => room.startsWith("agency:") || room.startsWith("unit:");
export const sessionRoom = (id: string) => `session:${id}`;
export const userRoom = (id: number) => `user:${id}`;
/** Marks the sockets of a user that asked for their feed (join-user-agencies). */
export const followingRoom = (id: number) => `user-agencies:${id}`;
export const ADMIN_ROOM = "admin";
/** A station display's sockets (issue 34), to sign them out when the display is unpaired. */
export const displayRoom = (id: number) => `display:${id}`;

/** Agency rows change rarely; a short cache keeps publishing off the database. */
export class AgencyCache {
  private rows: Map<number, typeof agencies.$inferSelect> | null = null;
  private loadedAt = 0;
  constructor(private readonly app: FastifyInstance) {}
  async get() {
    if (!this.rows || Date.now() - this.loadedAt > 10_000) {
      const all = await this.app.db.select().from(agencies);
      this.rows = new Map(all.map((a) => [a.id, a]));
      this.loadedAt = Date.now();
    }
    return this.rows;
  }
}

export type Followed = {
  view: FeedView;
  rooms: string[];
  agencies: (typeof agencies.$inferSelect)[];
  units: { id: number; name: string; agency_id: number }[];
};

/**
 * The rooms of a page following its member's feed: in the unit view (issue 26) the rooms of their
 * units and of the visible agencies in which they chose no unit; in the agencies view every visible
 * agency's room. `units` are the member's units in their visible agencies (the view's chip names them).
 */
export async function followedRooms(app: FastifyInstance, userId: number, view: FeedView): Promise<Followed> {
  const visible = await visibleAgencies(app, userId);
  const visibleIds = visible.map((a) => a.id);
  const units = (await unitsOfUser(app.db, userId))
    .filter((u) => visibleIds.includes(u.agency_id))
    .map((u) => ({ id: u.id, name: u.name, agency_id: u.agency_id }));
  if (view === "agencies" || units.length === 0)
    return { view, rooms: visibleIds.map(agencyRoom), agencies: visible, units };
  const scope = await unitViewOf(app.db, userId, visibleIds);
  return {
    view,
    rooms: [...scope.unitIds.map(unitRoom), ...scope.wholeAgencyIds.map(agencyRoom)],
    agencies: visible,
    units,
  };
}

/**
 * What `joined-user-agencies` tells a page: its agencies, its units and view (issue 26), and a warning
 * when there are no agencies.
 */
export function joinedNotice({ agencies: joined, units, view }: Followed) {
  return {
    agencies: joined.map((a) => ({ id: a.id, name: a.name, code: a.code })),
    units,
    view,
    ...(joined.length === 0
      ? {
          warning: "You are not assigned to any agency yet, so no alerts will arrive. Ask an administrator.",
        }
      : {}),
  };
}

export async function assignedAgencies(app: FastifyInstance, userId: number) {
  const rows = await app.db
    .select({ agency: agencies })
    .from(userAgencies)
    .innerJoin(agencies, eq(agencies.id, userAgencies.agencyId))
    .where(eq(userAgencies.userId, userId));
  return rows.map((r) => r.agency);
}

/** The user's agencies minus those they chose to hide (user filters). */
async function visibleAgencies(app: FastifyInstance, userId: number) {
  const assigned = await assignedAgencies(app, userId);
  const hidden = await hiddenAgencyIds(app.db, userId);
  return assigned.filter((a) => !hidden.includes(a.id));
}

export async function mayJoinAgency(app: FastifyInstance, actor: Actor, agencyId: number): Promise<boolean> {
  if (await isAdminNow(app, actor.userId)) {
    const [a] = await app.db.select({ id: agencies.id }).from(agencies).where(eq(agencies.id, agencyId));
    return Boolean(a);
  }
  const rows = await app.db
    .select({ id: userAgencies.agencyId })
    .from(userAgencies)
    .where(and(eq(userAgencies.userId, actor.userId), inArray(userAgencies.agencyId, [agencyId])));
  return rows.length > 0;
}

export async function isAdminNow(app: FastifyInstance, userId: number): Promise<boolean> {
  const [u] = await app.db.select({ isAdmin: users.isAdmin }).from(users).where(eq(users.id, userId));
  return u?.isAdmin === true;
}

/**
 * The units paged for any page of the job whose first alert is `jobAlertId` (its group's pages, or
 * the alert alone): their rooms hear the job's answers (a station board reads them there).
 */
export async function unitsOfJob(db: Database, jobAlertId: number): Promise<number[]> {
  const group = db.select({ groupId: alerts.groupId }).from(alerts).where(eq(alerts.id, jobAlertId));
  const rows = await db
    .selectDistinct({ unitId: unitCapcodes.unitId })
    .from(alerts)
    .innerJoin(alertRecipients, eq(alertRecipients.alertId, alerts.id))
    .innerJoin(unitCapcodes, eq(unitCapcodes.capcodeId, alertRecipients.capcodeId))
    .where(or(eq(alerts.id, jobAlertId), sql`${alerts.groupId} = (${group})`));
  return rows.map((r) => r.unitId);
}
