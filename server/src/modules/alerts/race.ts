// Racing transactions on PostgreSQL: attempts with their own planner settings, first answer wins, the rest cancelled.
import { type SQL, sql } from "drizzle-orm";
import type { Database } from "../../db/client.js";
import { arrayLiteral } from "../../db/rows.js";

export function setConfigs(settings: Record<string, string>): SQL[] {
  return Object.entries(settings).map(([name, value]) => sql`set_config(${name}, ${value}, true)`);
}

export function setLocal(settings: Record<string, string>): SQL {
  return sql`SELECT ${sql.join(setConfigs(settings), sql`, `)}`;
}

const QUERY_CANCELED = "57014";

export function isQueryCanceled(err: unknown): boolean {
  for (let e: unknown = err; e && typeof e === "object"; e = (e as { cause?: unknown }).cause) {
    if ((e as { code?: unknown }).code === QUERY_CANCELED) return true;
  }
  return false;
}

const CANCEL_RETRY_MS = 50;
const CANCEL_TRIES = 5;

/**
 * Thrown by a race attempt that stands aside (it cannot answer this search well): the other attempts
 * go on, and if they all fail, the race rejects with their error rather than this one.
 */
export class AttemptDeclined extends Error {}

export type RaceAttempt<T> = {
  /** Planner settings for this attempt's transaction (SET LOCAL). */
  settings: Record<string, string>;
  /** The attempt's query; it may throw AttemptDeclined to stand aside. */
  run: (tx: Database) => Promise<T>;
  /** Start only if nothing has answered after this long (a hedge); at once when an attempt fails. */
  delayMs?: number;
};

/**
 * PostgreSQL only: runs the attempts, each in its own transaction on its own pooled connection with
 * its planner settings, and resolves with the first to succeed (its index and value, and whether
 * another attempt was still running). The others are cancelled with pg_cancel_backend; a delayed
 * attempt that has not started by then never starts. A cancel may only reach the query it was meant
 * for: a losing attempt keeps its connection (and so its backend) until the cancelling is over,
 * cancels go only to attempts whose query is still running, never to the winner's backend (back in
 * the pool at once), and a cancel that lands between statements is ignored by PostgreSQL.
 * Rejects with the first error when every attempt fails.
 */
export async function raceTransactions<T>(
  db: Database,
  attempts: RaceAttempt<T>[],
): Promise<{ index: number; value: T; othersPending: boolean }> {
  const racers = attempts.map(() => {
    let queryEnded!: () => void;
    const stopped = new Promise<void>((r) => {
      queryEnded = r;
    });
    return { pid: null as number | null, started: false, running: false, done: false, stopped, queryEnded };
  });
  const timers: ReturnType<typeof setTimeout>[] = [];
  let winner: number | null = null;
  let releaseLosers!: () => void;
  const losersMayRelease = new Promise<void>((r) => {
    releaseLosers = r;
  });

  const cancelLosers = async () => {
    try {
      for (let tries = 0; tries < CANCEL_TRIES; tries++) {
        // Never the winner: its backend goes back to the pool (and to other requests) at once.
        const running = racers.filter((r, i) => i !== winner && r.running && r.pid !== null);
        if (running.length === 0) return;
        await db.execute(
          sql`SELECT pg_cancel_backend(pid) FROM unnest(${arrayLiteral(running.map((r) => r.pid!))}::int[]) AS pid`,
        );
        await Promise.race([
          Promise.all(running.map((r) => r.stopped)),
          new Promise((r) => setTimeout(r, CANCEL_RETRY_MS)),
        ]);
      }
    } finally {
      releaseLosers();
    }
  };

  return new Promise((resolve, reject) => {
    const errors: unknown[] = [];
    const start = (index: number) => {
      const racer = racers[index]!;
      if (racer.started || winner !== null) return;
      racer.started = true;
      clearTimeout(timers[index]);
      const attempt = attempts[index]!;
      db.transaction(async (tx) => {
        const result = await tx.execute(
          sql`SELECT pg_backend_pid() AS pid${sql.join(
            setConfigs(attempt.settings).map((c) => sql`, ${c}`),
            sql``,
          )}`,
        );
        racer.pid = Number((result as unknown as { rows: { pid: number }[] }).rows[0]!.pid);
        if (winner !== null) return;
        racer.running = true;
        try {
          const value = await attempt.run(tx);
          if (winner === null) {
            winner = index;
            for (const t of timers) clearTimeout(t);
            const othersPending = racers.some((r, i) => i !== index && r.started && !r.done);
            void cancelLosers().catch(() => {}); // a loser left running only costs time
            resolve({ index, value, othersPending });
          }
        } finally {
          racer.running = false;
          racer.queryEnded();
          // A loser keeps its backend until the cancelling is over; one that ends before any winner
          // exists can go at once (cancels only ever target attempts still running).
          if (winner !== null && winner !== index) await losersMayRelease;
        }
      })
        .catch((err: unknown) => {
          errors.push(err);
          if (winner !== null) return;
          // A failure lets the hedges still waiting start now.
          const waiting = [...racers.keys()].filter((i) => !racers[i]!.started);
          if (waiting.length > 0) for (const i of waiting) start(i);
          else if (racers.every((r) => r.done || r === racer)) {
            releaseLosers();
            // A declined attempt only stood aside: any other error tells more.
            reject(errors.find((e) => !(e instanceof AttemptDeclined)) ?? errors[0]);
          }
        })
        .finally(() => {
          racer.done = true;
        });
    };
    attempts.forEach((attempt, index) => {
      if (attempt.delayMs) timers[index] = setTimeout(() => start(index), attempt.delayMs);
      else start(index);
    });
  });
}
