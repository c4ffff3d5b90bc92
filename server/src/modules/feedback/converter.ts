import { rename, rm, stat } from "node:fs/promises";
import { eq, sql } from "drizzle-orm";
import type { Logger } from "pino";
import type { Database } from "../../db/client.js";
import { feedbackConversations, feedbackMedia, feedbackMessages } from "../../db/schema.js";
import type { LiveEvents } from "../../live/gateway.js";
import { PollingLoop } from "../../support/polling-loop.js";
import { convertToMp4 } from "./ffmpeg.js";
import type { MediaStore } from "./store.js";

export type ConversionWorkerOptions = {
  db: Database;
  store: MediaStore;
  ffmpegPath: string;
  logger: Logger;
  live: LiveEvents;
  /** How long a claim holds a row before another instance may take it over (renewed while converting). */
  leaseMs?: number;
  pollMs?: number;
  /** Tries before a video is marked failed. */
  maxAttempts?: number;
  /** Wait before retrying a failed conversion. */
  retryDelayMs?: number;
};

type Claimed = { id: number; filePath: string; attempts: number };

/**
 * Converts pending feedback videos to mp4, one at a time per instance. The job lives in the row
 * (conversion_status 'pending'), so it survives a restart: a claim sets lease_until under
 * FOR UPDATE SKIP LOCKED, so two instances never take one video, and a row whose lease ran out (its
 * instance died) is taken again. The lease is renewed while ffmpeg runs; stopping kills ffmpeg and
 * hands the row back at once. After `maxAttempts` tries the row is 'failed' (the original is kept).
 */
export class ConversionWorker {
  private readonly loop: PollingLoop;
  private readonly leaseMs: number;
  private readonly maxAttempts: number;
  private readonly retryDelayMs: number;
  private abort = new AbortController();

  constructor(private readonly options: ConversionWorkerOptions) {
    this.leaseMs = options.leaseMs ?? 10 * 60_000;
    this.maxAttempts = options.maxAttempts ?? 3;
    this.retryDelayMs = options.retryDelayMs ?? 30_000;
    this.loop = new PollingLoop({
      pollMs: options.pollMs ?? 5000,
      logger: options.logger,
      failureMessage: "feedback video conversion cycle failed",
      cycle: () => this.cycle(),
    });
  }

  start(): void {
    if (this.loop.running) return;
    this.abort = new AbortController();
    this.loop.start();
  }

  /** Converts now (after the cycle in flight): call after committing a pending video. */
  nudge(): void {
    this.loop.kick();
  }

  /** Kills a running ffmpeg, hands its row back, and resolves once the cycle has finished. */
  async stop(): Promise<void> {
    this.abort.abort();
    await this.loop.stop();
  }

  private async cycle(): Promise<void> {
    while (!this.loop.isStopped) {
      const claimed = await this.claim();
      if (!claimed) return;
      await this.convert(claimed);
    }
  }

  private async claim(): Promise<Claimed | null> {
    const leaseSeconds = this.leaseMs / 1000;
    const result = (await this.options.db.execute(sql`
      update feedback_media
      set lease_until = now() + make_interval(secs => ${leaseSeconds}::double precision),
        conversion_attempts = conversion_attempts + 1
      where id = (
        select id from feedback_media
        where conversion_status = 'pending' and (lease_until is null or lease_until < now())
        order by id
        limit 1
        for update skip locked
      ) and conversion_status = 'pending'
      returning id, file_path, conversion_attempts`)) as { rows: Record<string, unknown>[] };
    const row = result.rows[0];
    if (!row) return null;
    return { id: Number(row.id), filePath: String(row.file_path), attempts: Number(row.conversion_attempts) };
  }

  /** The claim still ours: same row, still pending, not re-claimed since (attempts names the claim). */
  private ours(job: Claimed) {
    return sql`${feedbackMedia.id} = ${job.id} and ${feedbackMedia.conversionStatus} = 'pending'
      and ${feedbackMedia.conversionAttempts} = ${job.attempts}`;
  }

  private async convert(job: Claimed): Promise<void> {
    const { db, store, logger } = this.options;
    if (job.attempts > this.maxAttempts) {
      await this.finish(job, "failed", { conversionStatus: "failed", leaseUntil: null });
      logger.error({ mediaId: job.id, attempts: job.attempts - 1 }, "feedback video conversion gave up");
      return;
    }
    const temp = store.newTempPath(".mp4");
    const heartbeat = setInterval(() => {
      db.update(feedbackMedia)
        .set({ leaseUntil: sql`now() + make_interval(secs => ${this.leaseMs / 1000}::double precision)` })
        .where(this.ours(job))
        .catch((err: unknown) =>
          logger.warn({ err, mediaId: job.id }, "feedback conversion lease renewal failed"),
        );
    }, this.leaseMs / 3);
    heartbeat.unref();
    const started = Date.now();
    try {
      await convertToMp4(this.options.ffmpegPath, store.pathOf(job.filePath), temp, this.abort.signal);
      const name = store.newName("mp4");
      await rename(temp, store.pathOf(name));
      const { size } = await stat(store.pathOf(name));
      const done = await this.finish(job, "done", {
        conversionStatus: "done",
        filePath: name,
        fileType: "video/mp4",
        sizeBytes: size,
        leaseUntil: null,
      });
      // Deleted (or taken over) meanwhile: the new file is nobody's.
      await store.remove([done ? job.filePath : name]);
      logger.info({ mediaId: job.id, ms: Date.now() - started, ok: done }, "feedback video converted");
    } catch (err) {
      await rm(temp, { force: true });
      if (this.abort.signal.aborted) {
        // Stopping: the next instance (or this one restarted) takes it at once, and the try is not counted.
        await db
          .update(feedbackMedia)
          .set({ leaseUntil: null, conversionAttempts: job.attempts - 1 })
          .where(this.ours(job));
        return;
      }
      const final = job.attempts >= this.maxAttempts;
      logger.warn(
        { mediaId: job.id, attempts: job.attempts, final, err },
        "feedback video conversion failed",
      );
      if (final) await this.finish(job, "failed", { conversionStatus: "failed", leaseUntil: null });
      else {
        await db
          .update(feedbackMedia)
          .set({
            leaseUntil: sql`now() + make_interval(secs => ${this.retryDelayMs / 1000}::double precision)`,
          })
          .where(this.ours(job));
      }
    } finally {
      clearInterval(heartbeat);
    }
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
      .set(set)
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
