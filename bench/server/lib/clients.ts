import { Agent } from "node:http";
import type pg from "pg";
import { signSessionToken } from "../../../server/src/shared/tokens.js";
import { type BenchAgency, weightedPick } from "./agencies.js";
import { rng } from "./messages.js";

/**
 * socket.io-client options for the connections of one phone's browser to the server: kept alive and
 * reused, at most 6 at once (HTTP/1.1). Without an agent, socket.io-client in Node opens a new TCP
 * connection for every long-poll and every pong, which no browser does, and a busy Node server accepts
 * one new connection per event-loop iteration (libuv 1.45+), so a thousand such clients measure the
 * server's accept queue rather than its live channel (results/live-burst.md, 2026-12-07).
 */
export function browserConnections(): { agent: string } {
  // engine.io-client hands `agent` to Node's http.request (xmlhttprequest-ssl); its type says string.
  return { agent: new Agent({ keepAlive: true, maxSockets: 6 }) as unknown as string };
}

/** A signed-in benchmark client: its index, its session token, and whether it is an admin. */
export type ClientSpec = { index: number; token: string; admin: boolean };

/**
 * `count` users with 1-2 agencies each (the first `admins` of them admins), a device session each,
 * and a token signed with `jwtSecret` (the server's JWT_SECRET), inserted directly.
 */
export async function createBenchClients(
  client: pg.Client,
  agencies: BenchAgency[],
  { count, admins, jwtSecret }: { count: number; admins: number; jwtSecret: string },
): Promise<{ specs: ClientSpec[]; agencyIdsByClient: number[][] }> {
  const random = rng(99);
  const weighted = agencies.map((a) => ({ id: a.id, w: a.service === "ambulance" ? 5 : a.weight }));
  const pick = () => weightedPick(weighted, (a) => a.w, random).id;
  const agencyIdsByClient: number[][] = [];
  for (let i = 0; i < count; i++) {
    const ids = new Set([pick()]);
    if (random() < 0.4) ids.add(pick());
    agencyIdsByClient.push([...ids]);
  }
  const users = await client.query<{ id: number }>(
    `INSERT INTO users (first_name, last_name, phone, is_admin, is_verified, is_active)
     SELECT 'Bench', 'User ' || i, '+6149' || lpad(i::text, 7, '0'), i <= $2, true, true
       FROM generate_series(1, $1::int) AS i ORDER BY i RETURNING id`,
    [count, admins],
  );
  const userIds = users.rows.map((r) => r.id);
  await client.query(
    "INSERT INTO user_agencies (user_id, agency_id) SELECT * FROM unnest($1::int[], $2::int[])",
    [agencyIdsByClient.flatMap((ids, i) => ids.map(() => userIds[i]!)), agencyIdsByClient.flat()],
  );
  const expiresAt = new Date(Date.now() + 86_400_000);
  const sessions = await client.query<{ id: string; user_id: number }>(
    `INSERT INTO device_sessions (user_id, device_id, expires_at)
     SELECT u, 'bench-device-' || u, $2 FROM unnest($1::int[]) AS u RETURNING id, user_id`,
    [userIds, expiresAt],
  );
  const sessionByUser = new Map(sessions.rows.map((r) => [r.user_id, r.id]));
  const secret = new TextEncoder().encode(jwtSecret);
  const specs = await Promise.all(
    userIds.map(async (userId, index) => ({
      index,
      admin: index < admins,
      token: await signSessionToken(secret, { userId, sessionId: sessionByUser.get(userId)!, expiresAt }),
    })),
  );
  return { specs, agencyIdsByClient };
}
