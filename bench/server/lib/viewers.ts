import pg from "pg";
import { signSessionToken } from "../../../server/src/shared/tokens.js";
import { readAgencies } from "./agencies.js";
import { onExit } from "./common.js";
import { SEARCH_SCOPES } from "./search-classes.js";

/** The two viewers of the search benchmarks' targets, as signed bearer tokens. */
export type BenchViewers = {
  /** An admin (searching in admin context). */
  admin: string;
  /** A member of the small agency (VICSES Mid West). */
  small: string;
  smallAgencyIds: number[];
  /** Deletes both users (their sessions and agencies cascade); also done on exit. */
  remove: () => Promise<void>;
};

/**
 * An admin and a member of the small agency in a database load-search.ts made, each with a device
 * session and a token signed with `jwtSecret` (what the server under test is given). `label` names
 * them (users.last_name, the session's device id) and `phoneSlot` keeps two benchmarks' phone numbers
 * apart.
 */
export async function createBenchViewers(
  url: string,
  jwtSecret: string,
  { label, phoneSlot }: { label: string; phoneSlot: number },
): Promise<BenchViewers> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const userIds: number[] = [];
  const tokens: string[] = [];
  let smallAgencyIds: number[];
  try {
    const agencies = await readAgencies(client);
    const small = SEARCH_SCOPES.find((s) => s.small)!;
    smallAgencyIds = small.agencyCodes.map((c) => agencies.find((a) => a.code === c)!.id);
    const expiresAt = new Date(Date.now() + 86_400_000);
    for (const [i, isAdmin] of [true, false].entries()) {
      const phone = `+614${String(process.pid % 10_000).padStart(4, "0")}${String(phoneSlot + i)}`;
      const { rows } = await client.query<{ id: number }>(
        `INSERT INTO users (first_name, last_name, phone, is_admin, is_verified, is_active)
         VALUES ('Bench', $1, $2, $3, true, true) RETURNING id`,
        [`${label} ${isAdmin ? "admin" : "small agency"}`, phone, isAdmin],
      );
      const userId = rows[0]!.id;
      userIds.push(userId);
      for (const agencyId of isAdmin ? [] : smallAgencyIds)
        await client.query("INSERT INTO user_agencies (user_id, agency_id) VALUES ($1, $2)", [
          userId,
          agencyId,
        ]);
      const session = await client.query<{ id: string }>(
        "INSERT INTO device_sessions (user_id, device_id, expires_at) VALUES ($1, $2, $3) RETURNING id",
        [userId, `bench-${label.toLowerCase().replace(/\W+/g, "-")}`, expiresAt],
      );
      tokens.push(
        await signSessionToken(new TextEncoder().encode(jwtSecret), {
          userId,
          sessionId: session.rows[0]!.id,
          expiresAt,
        }),
      );
    }
  } finally {
    await client.end();
  }
  let removed = false;
  const remove = async () => {
    if (removed) return;
    removed = true;
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      await c.query("DELETE FROM users WHERE id = ANY($1::int[])", [userIds]);
    } finally {
      await c.end();
    }
  };
  onExit(remove);
  return { admin: tokens[0]!, small: tokens[1]!, smallAgencyIds, remove };
}
