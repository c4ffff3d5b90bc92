import { sql } from "drizzle-orm";
import type { Logger } from "pino";
import type { Cache } from "../../cache/cache.js";
import type { ServiceContext } from "../../context.js";
import type { Database } from "../../db/client.js";
import { isConnectionFailure } from "../../db/reachability.js";
import { queueAlertPushes } from "../../push/queue.js";
import { PollingLoop } from "../../support/polling-loop.js";
import {
  alertsYoungerThan,
  claimQueuedAlerts,
  type FiredTrigger,
  fireRules,
  loadIndexedRules,
  MATCH_MAX_ALERT_AGE_MS,
  type MatchOptions,
  recentAlertTexts,
} from "./matching.js";
import { RuleIndex } from "./rule-index.js";

/** The cache key whose value changes whenever a rule that can fire changes, on any instance. */
const RULES_VERSION_KEY = "rules:version";
const RULES_VERSION_TTL_SECONDS = 30 * 86_400;

export type RuleMatcherOptions = {
  db: Database;
  cache: Cache;
  logger: Logger;
  publicUrl: string | null;
  /** Called after a commit that queued SMS. */
  nudgeSms: () => void;
  /** Called after a commit that queued push messages (issue 15). */
  nudgePush?: () => void;
  /** How often to look for queued alerts nobody nudged about (another instance's ingest). */
  pollMs?: number;
  /** Alerts taken off the queue per transaction. */
  batchSize?: number;
  /**
   * A nudge waits this long before matching, so alerts committed one by one in quick succession
   * (a receiver posting each message as it decodes it) are matched in one transaction, not one each.
   */
  nudgeDelayMs?: number;
  /** A burst of rule changes causes one rebuild this long after the last of them. */
  rebuildDebounceMs?: number;
  /** The index is rebuilt at least this often, whatever the version key says. */
  fullRebuildMs?: number;
  maxAlertAgeMs?: number;
};

/** The default `nudgeDelayMs`: a few ms on an SMS, a transaction and a commit saved per message in a burst. */
export const NUDGE_DELAY_MS = 20;

/** Matchers running in this process, per database, so ingest and rule changes can reach them. */
const running = new Map<Database, Set<RuleMatcher>>();

/**
 * Tells the rule matchers that ingest committed alerts: they take them off the queue within NUDGE_DELAY_MS.
 * Call after the commit; it does not wait for the matching, so ingest's reply is not delayed. Nothing
 * depends on this call for correctness: the alerts are already queued (by the recipients trigger) and
 * every matcher polls the queue.
 */
export function matchRulesAfterCommit(ctx: Pick<ServiceContext, "db">): void {
  for (const matcher of running.get(ctx.db) ?? []) matcher.nudge();
}

/**
 * Tells every matcher (this instance at once, others through the cache's version key) that a rule
 * that can fire was added, removed or changed, so their indexes are rebuilt. Call after the commit.
 */
export function rulesChanged(ctx: Pick<ServiceContext, "db" | "cache" | "logger">): void {
  for (const matcher of running.get(ctx.db) ?? []) matcher.rulesChanged();
  ctx.cache
    .increment(RULES_VERSION_KEY, RULES_VERSION_TTL_SECONDS)
    .catch((err: unknown) => ctx.logger.warn({ err }, "rules: could not bump the rules version"));
}

/** Thrown inside a matching transaction to roll it back when a local rule change made the index stale. */
class StaleIndex extends Error {}
const MAX_STALE_INDEX_RETRIES = 3;

/**
 * Matches committed alerts against the approved, active keyword rules and queues their SMS.
 *
 * Work comes from `rule_match_queue`, which the database fills in the transaction that adds an
 * alert's recipients; a matcher deletes queue rows in the same transaction that records the triggers
 * and queues the SMS. So an alert is matched after its commit, and if the process dies before the
 * matcher's commit, the rows are still there for the next cycle (this process on restart, or another
 * instance's poll). Cycles of one matcher never overlap; several matchers share the queue with SKIP
 * LOCKED, and the trigger table's unique key keeps every (rule, alert) to one SMS whatever happens.
 *
 * The rule index is rebuilt when a rule changes here (debounced), when the cache's version key shows
 * a change made on another instance, and every `fullRebuildMs` regardless.
 */
export class RuleMatcher {
  private readonly db: Database;
  private readonly cache: Cache;
  private readonly logger: Logger;
  private readonly publicUrl: string | null;
  private readonly nudgeSms: () => void;
  private readonly nudgePush: () => void;
  private readonly pollMs: number;
  private readonly batchSize: number;
  private readonly rebuildDebounceMs: number;
  private readonly fullRebuildMs: number;
  private readonly maxAlertAgeMs: number | undefined;

  private index: RuleIndex | null = null;
  private builtVersion: string | null | undefined;
  private builtAt = 0;
  private dirty = true;
  /** A committed transaction of this matcher queued push messages: the push worker is woken. */
  private pushQueued = false;

  private readonly loop: PollingLoop;
  private rebuildTimer: NodeJS.Timeout | undefined;

  constructor(options: RuleMatcherOptions) {
    this.db = options.db;
    this.cache = options.cache;
    this.logger = options.logger.child({ component: "rule-matcher" });
    this.publicUrl = options.publicUrl;
    this.nudgeSms = options.nudgeSms;
    this.nudgePush = options.nudgePush ?? (() => {});
    this.pollMs = options.pollMs ?? 1000;
    this.batchSize = options.batchSize ?? 200;
    this.rebuildDebounceMs = options.rebuildDebounceMs ?? 200;
    this.fullRebuildMs = options.fullRebuildMs ?? 10 * 60_000;
    this.maxAlertAgeMs = options.maxAlertAgeMs;
    this.loop = new PollingLoop({
      pollMs: this.pollMs,
      logger: this.logger,
      failureMessage: "rule matching cycle failed",
      kickDelayMs: options.nudgeDelayMs ?? NUDGE_DELAY_MS,
      cycle: () => this.cycle(),
    });
  }

  /**
   * Builds the index, drains what was queued while no matcher ran (a crash), then polls. A stopped
   * matcher may be started again; what was queued meanwhile is matched then.
   */
  start(): void {
    if (this.loop.running) return;
    const set = running.get(this.db) ?? new Set<RuleMatcher>();
    running.set(this.db, set);
    set.add(this);
    this.loop.start();
  }

  /** Runs a cycle now (or right after the one in flight). */
  nudge(): void {
    this.loop.kick();
  }

  /** A rule changed on this instance: rebuild before the next match, and soon even if nothing arrives. */
  rulesChanged(): void {
    this.dirty = true;
    if (!this.loop.running) return;
    clearTimeout(this.rebuildTimer);
    this.rebuildTimer = setTimeout(() => this.loop.kick(), this.rebuildDebounceMs);
    this.rebuildTimer.unref();
  }

  /** Stops polling and resolves once the cycle in flight has committed or rolled back. */
  async stop(): Promise<void> {
    clearTimeout(this.rebuildTimer);
    running.get(this.db)?.delete(this);
    await this.loop.stop();
  }

  /** One cycle after any in flight: drains the queue; resolves to the number of triggers fired. */
  runOnce(): Promise<number> {
    return this.loop.runExclusive(() => this.cycle());
  }

  /** The index in use (for tests and metrics). */
  currentIndex(): RuleIndex | null {
    return this.index;
  }

  /** Brings the index up to date when rules changed here, elsewhere, or long ago. */
  private async refreshIndex(): Promise<RuleIndex> {
    let version: string | null | undefined;
    try {
      version = await this.cache.get(RULES_VERSION_KEY);
    } catch {
      version = this.builtVersion; // cache store down: rely on local changes and the periodic rebuild
    }
    const stale = Date.now() - this.builtAt > this.fullRebuildMs;
    if (this.index && !this.dirty && !stale && version === this.builtVersion) return this.index;
    // Cleared before loading: a change committed during the load marks it dirty again.
    this.dirty = false;
    const started = Date.now();
    const [rules, sample] = await Promise.all([loadIndexedRules(this.db), recentAlertTexts(this.db)]);
    const index = RuleIndex.build(rules, sample);
    this.index = index;
    this.builtVersion = version;
    this.builtAt = Date.now();
    this.logger.debug(
      { rules: index.ruleCount, keywords: index.keywordCount, ms: this.builtAt - started },
      "rule index built",
    );
    return index;
  }

  private async cycle(): Promise<number> {
    let index = await this.refreshIndex();
    let fired = 0;
    let staleRetries = 0;
    for (;;) {
      let claimed: number[] = [];
      try {
        const result = await this.db.transaction(async (tx) => {
          claimed = await claimQueuedAlerts(tx, this.batchSize);
          const triggers = await this.matchAndPush(tx, index, claimed);
          // A rule committed here while the index was loading, and an alert right after it, would be
          // matched without that rule: roll back and match again with the rebuilt index (a few times
          // at most, so a stream of rule edits cannot hold matching up).
          if (this.dirty && staleRetries < MAX_STALE_INDEX_RETRIES) throw new StaleIndex();
          return triggers;
        });
        fired += this.report(result);
      } catch (error) {
        if (error instanceof StaleIndex) {
          staleRetries += 1;
          index = await this.refreshIndex();
          continue;
        }
        // With the database out of reach one by one would fail too, once per alert: the loop backs off.
        if (claimed.length === 0 || isConnectionFailure(error)) throw error;
        // The batch rolled back: go one alert at a time, so one bad alert cannot hold up the rest.
        this.logger.error(
          { err: error, alerts: claimed.length },
          "rule matching batch failed; retrying one by one",
        );
        fired += await this.oneByOne(index, claimed);
      }
      if (claimed.length < this.batchSize || this.loop.isStopped) return fired;
    }
  }

  private async oneByOne(index: RuleIndex, alertIds: number[]): Promise<number> {
    let fired = 0;
    for (const alertId of alertIds) {
      try {
        const result = await this.db.transaction(async (tx) => {
          const taken = await tx.execute(
            sql`DELETE FROM rule_match_queue WHERE alert_id = ${alertId} RETURNING alert_id`,
          );
          if ((taken as unknown as { rows: unknown[] }).rows.length === 0) return [];
          return this.matchAndPush(tx, index, [alertId]);
        });
        fired += this.report(result);
      } catch (error) {
        if (isConnectionFailure(error)) throw error;
        // Left queued, moved to the back so the others go first; it is retried on later cycles.
        this.logger.error({ err: error, alertId }, "rule matching failed for an alert");
        await this.db
          .execute(sql`UPDATE rule_match_queue SET queued_at = now() WHERE alert_id = ${alertId}`)
          .catch(() => {});
      }
    }
    return fired;
  }

  /**
   * Fires the rules for these alerts and queues their push messages (agency choices and rules that ask
   * for push) in the same transaction, so an alert taken off the queue has both or, rolled back, neither.
   */
  private async matchAndPush(tx: Database, index: RuleIndex, alertIds: number[]): Promise<FiredTrigger[]> {
    const triggers = await fireRules(tx, index, alertIds, this.matchOptions());
    const fresh = await alertsYoungerThan(tx, alertIds, this.maxAlertAgeMs ?? MATCH_MAX_ALERT_AGE_MS);
    const pushes = await queueAlertPushes(
      tx,
      fresh,
      triggers
        .filter((t) => t.push)
        .map((t) => ({ alertId: t.alertId, userId: t.userId, agencyId: t.agencyId })),
    );
    if (pushes > 0) this.pushQueued = true;
    return triggers;
  }

  private matchOptions(): MatchOptions {
    return {
      publicUrl: this.publicUrl,
      maxAlertAgeMs: this.maxAlertAgeMs,
      onSkipped: (count) =>
        this.logger.warn(
          { alerts: count },
          "alerts too old for keyword-rule SMS (or deleted): dequeued without SMS",
        ),
    };
  }

  private report(result: { smsId: number | null; ruleId: number; alertId: number }[]): number {
    if (this.pushQueued) {
      this.pushQueued = false;
      this.nudgePush();
    }
    if (result.length === 0) return 0;
    const sms = result.filter((r) => r.smsId !== null).length;
    if (sms > 0) this.nudgeSms();
    this.logger.info({ triggers: result.length, sms }, "keyword rules fired");
    return result.length;
  }
}
