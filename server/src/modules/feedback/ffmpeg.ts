import { spawn } from "node:child_process";
import { stat } from "node:fs/promises";
import { setPriority } from "node:os";
import path from "node:path";

/**
 * How much lower than the server's its ffmpeg runs (nice 10): a conversion takes what CPU the server
 * leaves, so ingest and live delivery keep theirs (bench/README.md, "Media queue").
 */
export const MEDIA_NICENESS = 10;

/** ffprobe beside the ffmpeg in use: in the same folder when FFMPEG_PATH names one, else on PATH. */
export function ffprobePathFor(ffmpegPath: string): string {
  if (!ffmpegPath.includes("/")) return "ffprobe";
  const base = path.basename(ffmpegPath);
  const probe = base.includes("ffmpeg") ? base.replace("ffmpeg", "ffprobe") : "ffprobe";
  return path.join(path.dirname(ffmpegPath), probe);
}

/** The end of ffmpeg's stderr kept for an error message. */
const STDERR_TAIL = 1000;

/** Whether `bin -version` runs: checked once at start; false for a missing or broken binary. */
export function detectFfmpeg(bin: string): Promise<boolean> {
  return new Promise((resolve) => {
    const child = spawn(bin, ["-version"], { stdio: "ignore", timeout: 10_000 });
    child.once("error", () => resolve(false));
    child.once("close", (code) => resolve(code === 0));
  });
}

/**
 * Runs ffmpeg with an argument array (never a shell) and resolves when it exits 0; rejects with the
 * tail of its stderr otherwise. Aborting `signal` kills it (SIGKILL: a conversion holds no state worth
 * a clean exit, its output is a temp file).
 */
export function runFfmpeg(
  bin: string,
  args: readonly string[],
  options: { signal?: AbortSignal; timeoutMs?: number } = {},
): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, ["-hide_banner", "-nostdin", "-loglevel", "error", "-y", ...args], {
      stdio: ["ignore", "ignore", "pipe"],
      signal: options.signal,
      killSignal: "SIGKILL",
      timeout: options.timeoutMs,
    });
    lowerPriority(child.pid);
    let stderr = "";
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk: string) => {
      stderr = (stderr + chunk).slice(-STDERR_TAIL);
    });
    child.once("error", reject);
    child.once("close", (code, signal) => {
      if (code === 0) resolve();
      else reject(new Error(`ffmpeg ${signal ? `killed by ${signal}` : `exited ${code}`}: ${stderr.trim()}`));
    });
  });
}

/** Runs a child at MEDIA_NICENESS; a platform that refuses leaves it at the server's own priority. */
function lowerPriority(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    setPriority(pid, MEDIA_NICENESS);
  } catch {
    // not permitted here: the queue's concurrency and -threads still bound the work
  }
}

/** What ffprobe reads from a video's headers: its duration and the largest frame. */
export type VideoFacts = { durationSeconds: number; width: number; height: number };

/** Longest ffprobe output read: a few streams' worth of JSON. */
const PROBE_OUTPUT_MAX = 64 * 1024;

/**
 * Reads a video's duration and frame size with ffprobe (headers only, nothing decoded), at a lowered
 * priority and for at most 15 s. Rejects when ffprobe fails or finds no video stream or duration.
 */
export function probeVideo(bin: string, input: string, signal?: AbortSignal): Promise<VideoFacts> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      bin,
      [
        "-v",
        "error",
        "-threads",
        "1",
        "-print_format",
        "json",
        "-show_entries",
        "format=duration:stream=codec_type,width,height,duration",
        input,
      ],
      { stdio: ["ignore", "pipe", "pipe"], signal, killSignal: "SIGKILL", timeout: 15_000 },
    );
    lowerPriority(child.pid);
    let out = "";
    let err = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      if (out.length < PROBE_OUTPUT_MAX) out += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      err = (err + chunk).slice(-STDERR_TAIL);
    });
    child.once("error", reject);
    child.once("close", (code) => {
      if (code !== 0) return reject(new Error(`ffprobe exited ${code}: ${err.trim()}`));
      try {
        const parsed = JSON.parse(out) as {
          format?: { duration?: string };
          streams?: { codec_type?: string; width?: number; height?: number; duration?: string }[];
        };
        const videos = (parsed.streams ?? []).filter((st) => st.codec_type === "video");
        const durations = [parsed.format?.duration, ...(parsed.streams ?? []).map((st) => st.duration)]
          .map(Number)
          .filter((n) => Number.isFinite(n) && n >= 0);
        if (videos.length === 0 || durations.length === 0) throw new Error("no video stream or duration");
        const largest = videos.reduce((a, b) =>
          (a.width ?? 0) * (a.height ?? 0) >= (b.width ?? 0) * (b.height ?? 0) ? a : b,
        );
        resolve({
          durationSeconds: Math.max(...durations),
          width: largest.width ?? 0,
          height: largest.height ?? 0,
        });
      } catch (e) {
        reject(e);
      }
    });
  });
}

/**
 * Writes a jpeg poster frame (at 0.5 s, or the first frame of a shorter video), at most 480 px wide,
 * with `threads` decoding threads.
 */
export async function makePoster(
  bin: string,
  input: string,
  output: string,
  options: { threads: number; signal?: AbortSignal },
) {
  const { threads, signal } = options;
  const t = ["-threads", String(threads)];
  const frame = [...t, "-frames:v", "1", "-vf", "scale='min(480,iw)':-2", "-q:v", "4", output];
  // Past the end of a short video ffmpeg may exit 0 having written nothing: then the first frame.
  const ok = await runFfmpeg(bin, [...t, "-ss", "0.5", "-i", input, ...frame], { signal, timeoutMs: 60_000 })
    .then(() => nonEmpty(output))
    .catch(() => false);
  if (!ok) await runFfmpeg(bin, [...t, "-i", input, ...frame], { signal, timeoutMs: 60_000 });
  if (!(await nonEmpty(output))) throw new Error("ffmpeg wrote no poster frame");
}

async function nonEmpty(file: string): Promise<boolean> {
  const info = await stat(file).catch(() => null);
  return (info?.size ?? 0) > 0;
}

/**
 * Converts a video to mp4 (H.264/AAC, yuv420p, even dimensions, faststart) for every browser, with
 * `threads` threads for decoding, filtering and encoding.
 */
export function convertToMp4(
  bin: string,
  input: string,
  output: string,
  options: { threads: number; signal?: AbortSignal },
) {
  const threads = String(options.threads);
  const signal = options.signal;
  return runFfmpeg(
    bin,
    [
      "-threads",
      threads,
      "-i",
      input,
      "-threads",
      threads,
      "-filter_threads",
      threads,
      "-map",
      "0:v:0",
      "-map",
      "0:a:0?",
      "-c:v",
      "libx264",
      "-preset",
      "veryfast",
      "-crf",
      "23",
      "-pix_fmt",
      "yuv420p",
      "-vf",
      "scale=trunc(iw/2)*2:trunc(ih/2)*2",
      "-c:a",
      "aac",
      "-movflags",
      "+faststart",
      "-f",
      "mp4",
      output,
    ],
    // A one-minute phone video takes well under this; a stuck ffmpeg must not hold the worker forever.
    { signal, timeoutMs: 30 * 60_000 },
  );
}
