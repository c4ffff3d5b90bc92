import { sql } from "drizzle-orm";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testEngine } from "../../test/build-app.js";
import { createScratchDatabase } from "../../test/scratch-database.js";
import { type DatabaseHandle, dumpMemoryDatabase, openDatabase } from "./client.js";
import { rowsOf } from "./rows.js";

describe.skipIf(testEngine !== "postgres")("the PostgreSQL pool when connections die", () => {
  let scratch: { url: string; drop: () => Promise<void> };
  let handle: DatabaseHandle;
  let admin: pg.Client;

  beforeAll(async () => {
    scratch = await createScratchDatabase(process.env.DATABASE_URL!);
    handle = await openDatabase({ databaseUrl: scratch.url, pgliteDir: "" });
    admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await admin.connect();
  });
  afterAll(async () => {
    await admin?.end();
    await handle?.close();
    await scratch?.drop();
  });

  const terminateAll = () =>
    admin.query(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()",
      [new URL(scratch.url).pathname.slice(1)],
    );
  /** Ten transactions at once: the pool's every connection busy. */
  const fillPool = () =>
    Promise.allSettled(
      Array.from({ length: 10 }, () =>
        handle.db.transaction(async (tx) => {
          await tx.execute(sql`select pg_sleep(0.05)`);
        }),
      ),
    );

  it("gives back every connection whose BEGIN, query or COMMIT failed, so the pool serves again", async () => {
    const pool = (handle.db as unknown as { $client: pg.Pool }).$client;
    let failures = 0;
    for (let round = 0; round < 3; round++) {
      await fillPool(); // ten idle connections in the pool
      // Killed while idle: the next transactions take them before their sockets have said so, and
      // fail at BEGIN; the rest die mid-transaction.
      await terminateAll();
      failures += (await fillPool()).filter((r) => r.status === "rejected").length;
    }
    expect(failures).toBeGreaterThan(0);
    // Nothing is still checked out: a leaked connection would be, for good, until none were left.
    expect(pool.totalCount - pool.idleCount).toBe(0);
    const after = await fillPool();
    expect(after.filter((r) => r.status === "rejected")).toEqual([]);
  }, 30_000);

  it("survives a connection that dies while checked out between queries (no uncaught 'error' event)", async () => {
    const outcome = await handle.db
      .transaction(async (tx) => {
        await tx.execute(sql`select 1`);
        await terminateAll();
        await new Promise((r) => setTimeout(r, 200)); // the client hears of it while idle in the transaction
        await tx.execute(sql`select 1`);
      })
      .then(
        () => "committed",
        (err: Error) => err.message,
      );
    expect(outcome).not.toBe("committed");
    await expect(handle.db.execute(sql`select 1 as one`)).resolves.toBeTruthy();
  });
});

describe.skipIf(testEngine !== "pglite")("an in-memory database opened from another's image", () => {
  it("has the schema and the rows the image was taken with, and nothing written to either after", async () => {
    const original = await openDatabase({ databaseUrl: null, pgliteDir: "memory://" });
    try {
      await original.db.execute(sql`INSERT INTO agencies (code, name) VALUES ('IMG1', 'Before')`);
      const image = await dumpMemoryDatabase(original);
      await original.db.execute(sql`INSERT INTO agencies (code, name) VALUES ('IMG2', 'After')`);
      const codes = async (handle: DatabaseHandle) =>
        rowsOf<{ code: string }>(
          await handle.db.execute(sql`SELECT code FROM agencies WHERE code LIKE 'IMG%' ORDER BY code`),
        ).map((r) => r.code);
      const copy = await openDatabase({ databaseUrl: null, pgliteDir: "memory://", pgliteImage: image });
      try {
        expect(await codes(copy)).toEqual(["IMG1"]);
        await copy.db.execute(sql`INSERT INTO agencies (code, name) VALUES ('IMG3', 'Copy')`);
        expect(await codes(original)).toEqual(["IMG1", "IMG2"]);
        // pg_trgm works in the copy (its functions, and the search's trigram index is there).
        const trigrams = rowsOf<{ similar: boolean; indexed: boolean }>(
          await copy.db.execute(sql`SELECT similarity('house fire', 'house fires') > 0.5 AS similar,
            EXISTS (SELECT FROM pg_indexes WHERE indexname = 'alerts_agency_ids_message_idx') AS indexed`),
        );
        expect(trigrams).toEqual([{ similar: true, indexed: true }]);
        expect(await codes(copy)).toEqual(["IMG1", "IMG3"]);
      } finally {
        await copy.close();
      }
    } finally {
      await original.close();
    }
  });
});
