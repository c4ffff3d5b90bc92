/**
 * Building a page of 50 alerts in isolation (issue 32): from the page's alert rows (as the page query
 * returns them) to the bytes of the response body, in this process, measured in CPU time
 * (process.cpuUsage) rather than wall time, so the other work on a shared machine weighs less.
 *
 *   BENCH_DB=bench200k npx tsx bench/server/page-present.ts     (a database load-search.ts made)
 *   BENCH_ITERATIONS=2000 (per round), BENCH_ROUNDS=5
 *
 * Two ways of reading what the presenters need beside the rows, interleaved round by round:
 * - "three queries": recipients, units and agencies asked one after the other (the code before issue 32);
 * - "one query": alerts/page-context.ts (the server's code now), through presentForViewer.
 * Each iteration presents the page for an admin (every agency) and serialises `{ success, data,
 * pagination }` with JSON.stringify into a Buffer, as Fastify does for a route without a response schema.
 * The page: the 50 newest alerts (the first page of the feed).
 */
import os from "node:os";
import { ALERT_PAGE_SIZE } from "@turnout/domain";
import { desc, inArray } from "drizzle-orm";
import { openDatabase } from "../../server/src/db/client.js";
import { agencies, alerts } from "../../server/src/db/schema.js";
import { presentForViewer } from "../../server/src/modules/alerts/viewer.js";
import { type AlertRow, presentAlert } from "../../server/src/shared/alerts/present.js";
import { recipientsByAlert, unitsOf } from "../../server/src/shared/alerts/recipients.js";
import type { Scope } from "../../server/src/shared/alerts/scope.js";
import { unitsByCapcode } from "../../server/src/shared/units.js";
import { machineLine } from "../support/machine.js";
import { baseDatabaseUrl, log, ms, percentile, runMain, table } from "./lib/common.js";

const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 2000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);

type Db = Awaited<ReturnType<typeof openDatabase>>["db"];

/** The presenters as they read their context before issue 32: three queries (for an admin scope). */
async function presentThreeQueries(db: Db, rows: AlertRow[]) {
  const recipients = await recipientsByAlert(
    db,
    rows.map((r) => r.id),
  );
  const unitsOfCapcode = await unitsByCapcode(
    db,
    [...recipients.values()].flatMap((list) => list.map((r) => r.capcodeId)),
  );
  const chosen = new Map<number, number>();
  for (const row of rows) {
    const ids = recipients.get(row.id)?.map((r) => r.agencyId) ?? [row.agencyId];
    const agencyId = ids.includes(row.agencyId) ? row.agencyId : ids[0];
    if (agencyId !== undefined) chosen.set(row.id, agencyId);
  }
  const agencyRows = new Map(
    (
      await db
        .select()
        .from(agencies)
        .where(inArray(agencies.id, [...new Set(chosen.values())]))
    ).map((a) => [a.id, a]),
  );
  return rows
    .filter((r) => chosen.has(r.id))
    .map((r) =>
      presentAlert(
        r,
        agencyRows.get(chosen.get(r.id)!),
        unitsOf(recipients.get(r.id) ?? [], unitsOfCapcode, null),
      ),
    );
}

async function main() {
  const load0 = os.loadavg();
  const name = process.env.BENCH_DB ?? "bench1m";
  if (!/^bench\w*$/.test(name)) throw new Error("BENCH_DB must name a database load-search.ts made");
  const url = new URL(baseDatabaseUrl());
  url.pathname = `/${name}`;
  const handle = await openDatabase({ databaseUrl: url.toString(), pgliteDir: "" });
  try {
    const db = handle.db;
    const rows = await db
      .select()
      .from(alerts)
      .orderBy(desc(alerts.sentAt), desc(alerts.id))
      .limit(ALERT_PAGE_SIZE);
    const scope: Scope = { all: true };
    const pagination = { has_more: true, next_cursor: "x".repeat(24) };
    const ways = {
      "three queries": () => presentThreeQueries(db, rows),
      "one query": () => presentForViewer(db, rows, scope),
    } as const;
    // Same output both ways: the response bodies must be equal.
    const bodies = await Promise.all(
      Object.values(ways).map(async (f) => JSON.stringify({ success: true, data: await f(), pagination })),
    );
    if (bodies[0] !== bodies[1]) throw new Error("the two ways present the page differently");
    const bytes = Buffer.byteLength(bodies[0]!);
    const cpu: Record<keyof typeof ways, number[]> = { "three queries": [], "one query": [] };
    const wall: Record<keyof typeof ways, number[]> = { "three queries": [], "one query": [] };
    const serialiseOnly: number[] = [];
    const presented = await ways["one query"]();
    for (let round = -1; round < ROUNDS; round++) {
      for (const way of Object.keys(ways) as (keyof typeof ways)[]) {
        const n = round < 0 ? 200 : ITERATIONS;
        const c0 = process.cpuUsage();
        const t0 = performance.now();
        for (let i = 0; i < n; i++)
          Buffer.from(JSON.stringify({ success: true, data: await ways[way](), pagination }));
        const c = process.cpuUsage(c0);
        if (round >= 0) {
          cpu[way].push((c.user + c.system) / 1000 / n);
          wall[way].push((performance.now() - t0) / n);
        }
      }
      const c0 = process.cpuUsage();
      for (let i = 0; i < ITERATIONS; i++)
        Buffer.from(JSON.stringify({ success: true, data: presented, pagination }));
      const c = process.cpuUsage(c0);
      if (round >= 0) serialiseOnly.push((c.user + c.system) / 1000 / ITERATIONS);
      if (round >= 0) log(`round ${round + 1}/${ROUNDS} (load ${os.loadavg()[0]!.toFixed(2)})`);
    }
    const rowsOut = (Object.keys(ways) as (keyof typeof ways)[]).map((way) => [
      way,
      ms(percentile(cpu[way], 50)),
      `${ms(Math.min(...cpu[way]))}-${ms(Math.max(...cpu[way]))}`,
      ms(percentile(wall[way], 50)),
    ]);
    rowsOut.push([
      "JSON.stringify + Buffer of the presented page alone",
      ms(percentile(serialiseOnly, 50)),
      `${ms(Math.min(...serialiseOnly))}-${ms(Math.max(...serialiseOnly))}`,
      "",
    ]);
    console.log(
      [
        "```",
        machineLine(),
        `${new Date().toISOString()}; database ${name}; page of ${rows.length} alerts, body ${(bytes / 1000).toFixed(1)} KB; ` +
          `${ROUNDS} rounds × ${ITERATIONS} iterations per way, interleaved`,
        `load average before (1/5/15): ${load0.map((l) => l.toFixed(2)).join(" ")}; after: ${os
          .loadavg()
          .map((l) => l.toFixed(2))
          .join(" ")}`,
        "```",
        "",
        "CPU of this process per page (ms; PostgreSQL's own CPU not included), from the rows to the body's bytes:",
        "",
        table(["way", "CPU ms / page (median of rounds)", "range over rounds", "wall ms / page"], rowsOut),
      ].join("\n"),
    );
  } finally {
    await handle.close();
  }
}

runMain(main);
