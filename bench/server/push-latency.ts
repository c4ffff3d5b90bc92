/**
 * Web Push delivery time (issue 15: the push request leaves within 1 s p95 of the ingest commit):
 * from ingest's reply (the alert committed) to each device's push message arriving, encrypted and
 * VAPID-signed, at a local push service that speaks the protocol and decrypts it (the stand-in), with
 * DEVICES members' devices subscribed to the agency paged. The real server over HTTP on PostgreSQL.
 *
 *   npx tsx bench/server/push-latency.ts     (BENCH_DEVICES=50 BENCH_ALERTS=200; DATABASE_URL optional)
 *
 * Pages are sent one at a time, each after the previous one's pushes have all arrived (or 10 s).
 * The stand-in runs in this process, so its decryption shares the event loop with nothing of the
 * server's (the server is a child process).
 */
import pg from "pg";
import { startPushStandIn } from "../../server/src/testing/push-stand-in.js";
import { machineLine } from "../support/machine.js";
import {
  baseDatabaseUrl,
  ms,
  percentile,
  runMain,
  scratchDatabase,
  startServer,
  table,
} from "./lib/common.js";

const DEVICES = Number(process.env.BENCH_DEVICES ?? 50);
const ALERTS = Number(process.env.BENCH_ALERTS ?? 200);
const KEY = "bench-push-ingest-key-0123456789";

runMain(async () => {
  baseDatabaseUrl();
  const scratch = await scratchDatabase();
  const standIn = await startPushStandIn();
  const server = await startServer(scratch.url, {
    INGEST_API_KEY: KEY,
    PUSH_EXTRA_ENDPOINT_HOSTS: standIn.host,
  });
  const db = new pg.Client({ connectionString: scratch.url });
  await db.connect();
  try {
    const { rows: agency } = await db.query<{ id: number }>("SELECT id FROM agencies WHERE code = 'CFA'");
    const cfa = agency[0]!.id;
    await db.query("INSERT INTO capcodes (capcode, agency_id, area) VALUES ('0777001', $1, 'Bendigo')", [
      cfa,
    ]);
    // Members with one signed-in device each, subscribed at the stand-in.
    const endpoints = new Map<number, number>();
    for (let i = 0; i < DEVICES; i++) {
      const { rows } = await db.query<{ user_id: number; session_id: string }>(
        `WITH u AS (
           INSERT INTO users (first_name, last_name, phone, is_verified, is_active)
           VALUES ('Bench', 'Member ' || $1::int, '+6149' || lpad($1::text, 7, '0'), true, true) RETURNING id
         ), a AS (INSERT INTO user_agencies (user_id, agency_id) SELECT id, $2 FROM u)
         INSERT INTO device_sessions (user_id, device_id, expires_at)
         SELECT id, 'bench-device', now() + interval '1 day' FROM u RETURNING user_id, id AS session_id`,
        [i, cfa],
      );
      const subscription = standIn.createSubscription();
      const id = Number(subscription.endpoint.split("/").at(-1));
      endpoints.set(id, i);
      await db.query(
        "INSERT INTO push_subscriptions (session_id, user_id, endpoint, p256dh, auth) VALUES ($1, $2, $3, $4, $5)",
        [
          rows[0]!.session_id,
          rows[0]!.user_id,
          subscription.endpoint,
          subscription.keys.p256dh,
          subscription.keys.auth,
        ],
      );
    }

    const first: number[] = [];
    const last: number[] = [];
    let missing = 0;
    for (let n = 0; n < ALERTS; n++) {
      const sentBefore = standIn.received.length;
      const res = await fetch(`${server.url}/api/ingest/messages`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": KEY },
        body: JSON.stringify({
          messages: [
            {
              capcode: "0777001",
              message: `@@ALERT F26${String(7_000_000 + n)} STRUC1 HOUSE FIRE ${n} BENCH ST`,
            },
          ],
        }),
      });
      if (!res.ok) throw new Error(`ingest answered ${res.status}: ${await res.text()}`);
      const replied = Date.now();
      await res.text();
      try {
        await standIn.waitFor((got) => got.length >= sentBefore + DEVICES, 10_000);
      } catch {
        missing += sentBefore + DEVICES - standIn.received.length;
      }
      const arrivals = standIn.received.slice(sentBefore).map((r) => r.receivedAt - replied);
      if (arrivals.length > 0) {
        first.push(Math.min(...arrivals));
        last.push(Math.max(...arrivals));
      }
    }
    process.stdout.write(`\n${machineLine()}\n`);
    process.stdout.write(
      `${DEVICES} devices, ${ALERTS} emergency pages one at a time; missing pushes: ${missing}\n\n`,
    );
    process.stdout.write(
      `${table(
        ["ingest reply → push arrives", "p50 ms", "p95 ms", "max ms"],
        [
          ["first device", ms(percentile(first, 50)), ms(percentile(first, 95)), ms(Math.max(...first))],
          ["last of the devices", ms(percentile(last, 50)), ms(percentile(last, 95)), ms(Math.max(...last))],
        ],
      )}\n`,
    );
  } finally {
    await db.end();
    await standIn.close();
  }
});
