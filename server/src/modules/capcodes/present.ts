import type { capcodes } from "../../db/schema.js";
import type { UnmappedCapcode } from "./service.js";

type CapcodeRow = typeof capcodes.$inferSelect;

/** A capcode mapping (SPEC 7 'Admin: agencies and capcodes'): exactly the fields that leave the server. */
export function presentCapcode(c: CapcodeRow) {
  return {
    id: c.id,
    capcode: c.capcode,
    agency_id: c.agencyId,
    alias: c.alias,
    area: c.area,
    created_at: c.createdAt,
    updated_at: c.updatedAt,
  };
}

/** An unmapped capcode with how often, and when last, it was paged. */
export function presentUnmappedCapcode(c: UnmappedCapcode) {
  return { ...presentCapcode(c), message_count: c.messageCount, last_seen: c.lastSeen };
}

/** One alert in a capcode's recent messages. */
export function presentCapcodeMessage(m: {
  id: number;
  type: string;
  message: string;
  createdAt: Date;
  agencyId: number;
}) {
  return { id: m.id, type: m.type, message: m.message, created_at: m.createdAt, agency_id: m.agencyId };
}
