import type { Database } from "../src/db/client.js";

/**
 * The same database as seen by a process that can be killed: after `kill()`, every query through
 * `db.execute` (the SMS worker's claims and lease renewals) hangs for good, as a dead process's
 * timers and connections do nothing more. Rows it wrote stay as they were.
 */
export function killableDatabase(db: Database): { db: Database; kill: () => void } {
  let dead = false;
  const killable = Object.create(db, {
    execute: {
      value: (query: Parameters<Database["execute"]>[0]) =>
        dead ? new Promise(() => {}) : db.execute(query),
    },
  }) as Database;
  return {
    db: killable,
    kill: () => {
      dead = true;
    },
  };
}
