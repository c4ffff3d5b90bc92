import type { Logger } from "pino";
import type { Config } from "../../config.js";
import type { Database } from "../../db/client.js";
import type { LiveEvents } from "../../live/live-events.js";
import { MediaWorker } from "./converter.js";
import { detectFfmpeg, ffprobePathFor } from "./ffmpeg.js";
import { MediaStore } from "./store.js";

/** What the feedback routes and the app share: the file store, ffmpeg, the conversion worker. */
export type FeedbackRuntime = {
  store: MediaStore;
  /**
   * ffmpeg as found at start (`FFMPEG_PATH`, default `ffmpeg` on PATH) with the ffprobe beside it:
   * available only when both run.
   */
  ffmpeg: { path: string; probePath: string; available: boolean };
  /** The media queue: posters and conversions, MEDIA_CONCURRENCY at a time. */
  converter: MediaWorker;
};

declare module "fastify" {
  interface FastifyInstance {
    feedback: FeedbackRuntime;
  }
}

/**
 * Opens the media store and looks for ffmpeg once. Without it the server still runs: the System Monitor
 * warns, videos get no poster, and a video that would need converting is kept as 'unavailable'.
 */
export async function openFeedbackRuntime(
  config: Config,
  db: Database,
  logger: Logger,
  live: LiveEvents,
): Promise<FeedbackRuntime> {
  const store = new MediaStore(config.dataDir, config.jwtSecret);
  const swept = await store.sweepTemp();
  if (swept.length > 0)
    logger.info({ files: swept.length }, "removed partial uploads left by a process that died");
  const probePath = ffprobePathFor(config.ffmpegPath);
  const [ffmpegFound, ffprobeFound] = await Promise.all([
    detectFfmpeg(config.ffmpegPath),
    detectFfmpeg(probePath),
  ]);
  const available = ffmpegFound && ffprobeFound;
  if (!available) {
    logger.warn(
      { ffmpegPath: config.ffmpegPath, ffprobePath: probePath, ffmpegFound, ffprobeFound },
      "ffmpeg or ffprobe not found: feedback videos are kept unconverted and without posters",
    );
  }
  const converter = new MediaWorker({
    db,
    store,
    ffmpegPath: config.ffmpegPath,
    logger: logger.child({ component: "feedback-media" }),
    live,
    concurrency: config.media.concurrency,
    threads: config.media.ffmpegThreads,
  });
  return { store, ffmpeg: { path: config.ffmpegPath, probePath, available }, converter };
}
