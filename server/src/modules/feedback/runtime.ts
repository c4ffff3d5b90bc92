import type { Logger } from "pino";
import type { Config } from "../../config.js";
import type { Database } from "../../db/client.js";
import type { LiveEvents } from "../../live/gateway.js";
import { ConversionWorker } from "./converter.js";
import { detectFfmpeg } from "./ffmpeg.js";
import { MediaStore } from "./store.js";

/** What the feedback routes and the app share: the file store, ffmpeg, the conversion worker. */
export type FeedbackRuntime = {
  store: MediaStore;
  /** ffmpeg as found at start (`FFMPEG_PATH`, default `ffmpeg` on PATH). */
  ffmpeg: { path: string; available: boolean };
  converter: ConversionWorker;
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
  const available = await detectFfmpeg(config.ffmpegPath);
  if (!available) {
    logger.warn(
      { ffmpegPath: config.ffmpegPath },
      "ffmpeg not found: feedback videos are kept unconverted and without posters",
    );
  }
  const converter = new ConversionWorker({
    db,
    store,
    ffmpegPath: config.ffmpegPath,
    logger: logger.child({ component: "feedback-conversion" }),
    live,
  });
  return { store, ffmpeg: { path: config.ffmpegPath, available }, converter };
}
