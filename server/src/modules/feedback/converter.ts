import { rename, rm, stat } from "node:fs/promises";
import { and, eq, gt, sql } from "drizzle-orm";
import type { Logger } from "pino";
import type { Database } from "../../db/client.js";
import { feedbackConversations, feedbackMedia, feedbackMessages } from "../../db/schema.js";
import type { LiveEvents } from "../../live/live-events.js";
import { PollingLoop } from "../../support/polling-loop.js";
import { convertToMp4, makePoster } from "./ffmpeg.js";
import type { MediaStore } from "./store.js";

export type MediaWorkerOptions = {
  db: Database;
  store: MediaStore;
  ffmpegPath: string;
  logger: Logger;
  live: LiveEvents;
  /** ffmpeg processes at once across every instance on the database (MEDIA_CONCURRENCY). */
  concurrency: number;
  /** `-threads` of each ffmpeg (MEDIA_FFMPEG_THREADS). */
  threads: number;
  /** How long a claim holds a row before another instance may take it over (renewed while running). */
  leaseMs?: number;
  pollMs?: number;
  /** Tries before a video is marked failed. */
  maxAttempts?: number;
  /** Wait before retrying a failed conversion. */
  retryDelayMs?: number;
};

type Claimed = {
  id: number;
  filePath: string;
  attempts: number;
  poster: boolean;
  convert: boolean;
};

/** The advisory lock that makes claims one at a time, so the running count is read and raised together. */
const CLAIM_LOCK = 2_800_028;

/** What the System Monitor shows of the media queue. */
export type MediaQueueState = {
  /** Videos waiting for a poster or a conversion (retries included). */
  waiting: number;
  /** Jobs ffmpeg works on now, on every instance. */
  running: number;
  /** Conversions that gave up in the last 24 hours. */
  failed_last_day: number;
  /** Seconds the oldest waiting video has waited, or null. */
  oldest_waiting_seconds: number | null;
};

/**
 * The media queue: every ffmpeg run of feedback videos (poster frames and conversions to mp4) is a job
 * kept in its row (`poster_pending`, `conversion_status = 'pending'`), so it survives a restart and
 * never runs inside an upload request. At most `concurrency` jobs run at once across all instances: a
 * claim takes the advisory lock CLAIM_LOCK, counts the rows with `job_running` and a live lease, and
 * only then sets both on one more row (FOR UPDATE SKIP LOCKED). The lease is renewed while ffmpeg runs,
 * so a dead instance's job is taken over when its lease ends. Each ffmpeg runs with `-threads` limited
 * and at a lowered priority (ffmpeg.ts). Stopping kills ffmpeg and hands the row back at once. A poster
 * is tried once; a conversion `maxAttempts` times, then the row is 'failed' (the original is kept).
 */
export class MediaWorker {
  private readonly loop: PollingLoop;
  private readonly leaseMs: number;
  private readonly maxAttempts: number;
  private readonly retryDelayMs: number;
  private abort = new AbortController();

  constructor(private readonly options: MediaWorkerOptions) {
    this.leaseMs = options.leaseMs ?? 10 * 60_000;
    this.maxAttempts = options.maxAttempts ?? 3;
    this.retryDelayMs = options.retryDelayMs ?? 30_000;
    this.loop = new PollingLoop({
      pollMs: options.pollMs ?? 5000,
      logger: options.logger,
      failureMessage: "feedback media job cycle failed",
      cycle: () => this.cycle(),
    });
  }

  start(): void {
    if (this.loop.running) return;
    this.abort = new AbortController();
    this.loop.start();
  }

  /** Looks for work now (after the cycle in flight): call after committing a video. */
  nudge(): void {
    this.loop.kick();
  }

  /** Kills running ffmpegs, hands their rows back, and resolves once the cycle has finished. */
  async stop(): Promise<void> {
    this.abort.abort();
    await this.loop.stop();
  }

  /** The queue as the System Monitor shows it (all instances: it is read from the rows). */
  async state(): Promise<MediaQueueState> {
    const [row] = await this.options.db
      .select({
        waiting: sql<number>`count(*) filter (where (${feedbackMedia.conversionStatus} = 'pending' or ${feedbackMedia.posterPending}) and not (${feedbackMedia.jobRunning} and ${feedbackMedia.leaseUntil} > now()))`,
        running: sql<number>`count(*) filter (where ${feedbackMedia.jobRunning} and ${feedbackMedia.leaseUntil} > now())`,
        failed: sql<number>`count(*) filter (where ${feedbackMedia.conversionStatus} = 'failed' and ${feedbackMedia.createdAt} > now() - interval '1 day')`,
        oldest: sql<
          string | null
        >`min(${feedbackMedia.createdAt}) filter (where ${feedbackMedia.conversionStatus} = 'pending' or ${feedbackMedia.posterPending})`,
      })
      .from(feedbackMedia)
      .where(
        sql`${feedbackMedia.conversionStatus} in ('pending', 'failed') or ${feedbackMedia.posterPending}`,
      );
    const oldest = row?.oldest ? new Date(row.oldest).getTime() : null;
    return {
      waiting: Number(row?.waiting ?? 0),
      running: Number(row?.running ?? 0),
      failed_last_day: Number(row?.failed ?? 0),
      oldest_waiting_seconds: oldest === null ? null : Math.max(0, Math.round((Date.now() - oldest) / 1000)),
    };
  }

  private async cycle(): Promise<void> {
    while (!this.loop.isStopped) {
      const jobs: Claimed[] = [];
      for (let slot = 0; slot < this.options.concurrency; slot++) {
        const job = await this.claim();
        if (!job) break;
        jobs.push(job);
      }
      if (jobs.length === 0) return;
      await Promise.all(jobs.map((job) => this.run(job)));
    }
  }

  private async claim(): Promise<Claimed | null> {
    const leaseSeconds = this.leaseMs / 1000;
    return this.options.db.transaction(async (tx) => {
      await tx.execute(sql`select pg_advisory_xact_lock(${CLAIM_LOCK})`);
      const [busy] = await tx
        .select({ n: sql<number>`count(*)` })
        .from(feedbackMedia)
        .where(and(eq(feedbackMedia.jobRunning, true), gt(feedbackMedia.leaseUntil, sql`now()`)));
      if (Number(busy?.n ?? 0) >= this.options.concurrency) return null;
      const result = (await tx.execute(sql`
        update feedback_media
        set lease_until = now() + make_interval(secs => ${leaseSeconds}::double precision),
          job_running = true,
          conversion_attempts = conversion_attempts + 1
        where id = (
          select id from feedback_media
          where (conversion_status = 'pending' or poster_pending)
            and (lease_until is null or lease_until < now())
          order by id
          limit 1
          for update skip locked
        )
        returning id, file_path, conversion_attempts, poster_pending, conversion_status`)) as {
        rows: Record<string, unknown>[];
      };
      const row = result.rows[0];
      if (!row) return null;
      return {
        id: Number(row.id),
        filePath: String(row.file_path),
        attempts: Number(row.conversion_attempts),
        poster: row.poster_pending === true,
        convert: row.conversion_status === "pending",
      };
    });
  }

  /** The claim still ours: same row, not re-claimed since (attempts names the claim). */
  private ours(job: Claimed) {
    return sql`${feedbackMedia.id} = ${job.id} and ${feedbackMedia.conversionAttempts} = ${job.attempts}`;
  }

  private async run(job: Claimed): Promise<void> {
    const { db, logger } = this.options;
    const heartbeat = setInterval(() => {
      db.update(feedbackMedia)
        .set({ leaseUntil: sql`now() + make_interval(secs => ${this.leaseMs / 1000}::double precision)` })
        .where(this.ours(job))
        .catch((err: unknown) =>
          logger.warn({ err, mediaId: job.id }, "feedback media lease renewal failed"),
        );
    }, this.leaseMs / 3);
    heartbeat.unref();
    try {
      if (job.poster) await this.poster(job);
      if (this.abort.signal.aborted) await this.handBack(job);
      else if (job.convert) await this.convert(job);
      else await this.finish(job, "done", {});
    } finally {
      clearInterval(heartbeat);
    }
  }

  /** A poster frame; a video without one is still shown (and a poster is not worth a retry). */
  private async poster(job: Claimed): Promise<void> {
    const { db, store, logger } = this.options;
    const name = store.newName("jpg");
    try {
      await makePoster(this.options.ffmpegPath, store.pathOf(job.filePath), store.pathOf(name), {
        threads: this.options.threads,
        signal: this.abort.signal,
      });
      const [row] = await db
        .update(feedbackMedia)
        .set({ thumbnailPath: name, posterPending: false })
        .where(this.ours(job))
        .returning({ id: feedbackMedia.id });
      if (!row) await store.remove([name]);
    } catch (err) {
      await store.remove([name]);
      if (this.abort.signal.aborted) return;
      logger.warn({ mediaId: job.id, err }, "feedback video poster failed");
      await db.update(feedbackMedia).set({ posterPending: false }).where(this.ours(job));
    }
  }

  private async convert(job: Claimed): Promise<void> {
    const { db, store, logger } = this.options;
    if (job.attempts > this.maxAttempts) {
      await this.finish(job, "failed", { conversionStatus: "failed" });
      logger.error({ mediaId: job.id, attempts: job.attempts - 1 }, "feedback video conversion gave up");
      return;
    }
    const temp = store.newTempPath(".mp4");
    const started = Date.now();
    try {
      await convertToMp4(this.options.ffmpegPath, store.pathOf(job.filePath), temp, {
        threads: this.options.threads,
        signal: this.abort.signal,
      });
      const name = store.newName("mp4");
      await rename(temp, store.pathOf(name));
      const { size } = await stat(store.pathOf(name));
      const done = await this.finish(job, "done", {
        conversionStatus: "done",
        filePath: name,
        fileType: "video/mp4",
        sizeBytes: size,
      });
      // Deleted (or taken over) meanwhile: the new file is nobody's.
      await store.remove([done ? job.filePath : name]);
      logger.info({ mediaId: job.id, ms: Date.now() - started, ok: done }, "feedback video converted");
    } catch (err) {
      await rm(temp, { force: true });
      if (this.abort.signal.aborted) return this.handBack(job);
      const final = job.attempts >= this.maxAttempts;
      logger.warn(
        { mediaId: job.id, attempts: job.attempts, final, err },
        "feedback video conversion failed",
      );
      if (final) await this.finish(job, "failed", { conversionStatus: "failed" });
      else {
        await db
          .update(feedbackMedia)
          .set({
            jobRunning: false,
            leaseUntil: sql`now() + make_interval(secs => ${this.retryDelayMs / 1000}::double precision)`,
          })
          .where(this.ours(job));
      }
    }
  }

  /** Stopping: the next instance (or this one restarted) takes it at once, and the try is not counted. */
  private async handBack(job: Claimed): Promise<void> {
    await this.options.db
      .update(feedbackMedia)
      .set({ leaseUntil: null, jobRunning: false, conversionAttempts: job.attempts - 1 })
      .where(this.ours(job));
  }

  /** Records the outcome if the claim is still ours, then tells the owner and the admins; true if recorded. */
  private async finish(
    job: Claimed,
    status: "done" | "failed",
    set: Partial<typeof feedbackMedia.$inferInsert>,
  ): Promise<boolean> {
    const { db, live } = this.options;
    const [row] = await db
      .update(feedbackMedia)
      .set({ ...set, leaseUntil: null, jobRunning: false })
      .where(this.ours(job))
      .returning({ messageId: feedbackMedia.messageId });
    if (!row) return false;
    const [conversation] = await db
      .select({ id: feedbackConversations.id, ownerId: feedbackConversations.userId })
      .from(feedbackMessages)
      .innerJoin(feedbackConversations, eq(feedbackConversations.id, feedbackMessages.conversationId))
      .where(eq(feedbackMessages.id, row.messageId));
    if (conversation) {
      live.feedback({
        name: "feedback:media-converted",
        ownerId: conversation.ownerId,
        payload: { conversationId: conversation.id, mediaId: job.id, status },
      });
    }
    return true;
  }
}
