import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestDatabase } from "../../../test/build-app.js";
import type { DatabaseHandle } from "../../db/client.js";
import { rowsOf } from "../../db/rows.js";

let handle: DatabaseHandle;
beforeAll(async () => {
  handle = await openTestDatabase();
});
afterAll(() => handle.close());

describe("the GIN indexes' pending lists (issue 32)", () => {
  it("are bounded to 256 kB on every GIN index of alerts and search_words", async () => {
    const rows = rowsOf<{ index: string; options: string | null }>(
      await handle.db.execute(sql`
        SELECT c.relname AS index, array_to_string(c.reloptions, ',') AS options
          FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam
          JOIN pg_class t ON t.oid = i.indrelid
         WHERE a.amname = 'gin' AND t.relname IN ('alerts', 'search_words') ORDER BY 1`),
    );
    // A GIN index added later without the setting fails here: its pending list would grow to 4 MB
    // during heavy ingest and every search reading it would scan it whole.
    expect(rows.map((r) => r.index)).toEqual([
      "alerts_agency_ids_message_idx",
      "alerts_agency_ids_words_idx",
      "alerts_agency_words_idx",
      "search_words_trgm_idx",
    ]);
    for (const r of rows) expect(r.options, r.index).toBe("gin_pending_list_limit=256");
  });
});
