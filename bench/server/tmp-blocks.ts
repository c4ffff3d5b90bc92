import { drizzle } from "drizzle-orm/node-postgres";
import pg from "pg";
import type { Database } from "../../server/src/db/client.js";
import * as schema from "../../server/src/db/schema.js";
import { searchAlerts } from "../../server/src/modules/alerts/service.js";
const pool = new pg.Pool({ connectionString: process.argv[2], max: 10 });
const db = drizzle({ client: pool, schema }) as unknown as Database;
const admin = { userId: 0, sessionId: "x", isAdmin: true };
for (const search of (process.argv[3] ?? "STRUC1 ALARC1").split(",")) {
  for (const plan of ["blocks", "auto", "bitmap"] as const) {
    const times: number[] = []; let won = "";
    for (let i = 0; i < 22; i++) {
      const t = performance.now();
      try {
        await searchAlerts(db, admin as never, { limit: 50, search, adminContext: true }, { engine: "postgres", plan, hedgeMs: Number(process.env.H ?? 3), onPlan: (p) => { won = p; } });
      } catch (e) { won = String(e).slice(0, 60); }
      if (i >= 2) times.push(performance.now() - t);
    }
    times.sort((a, b) => a - b);
    console.log(search, plan, won, "p50", times[10]!.toFixed(2), "p95", times[18]!.toFixed(2));
  }
}
await pool.end();
