import { spawn } from "node:child_process";
import { stat } from "node:fs/promises";

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

/** Writes a jpeg poster frame (at 0.5 s, or the first frame of a shorter video), at most 480 px wide. */
export async function makePoster(bin: string, input: string, output: string, signal?: AbortSignal) {
  const frame = ["-frames:v", "1", "-vf", "scale='min(480,iw)':-2", "-q:v", "4", output];
  // Past the end of a short video ffmpeg may exit 0 having written nothing: then the first frame.
  const ok = await runFfmpeg(bin, ["-ss", "0.5", "-i", input, ...frame], { signal, timeoutMs: 60_000 })
    .then(() => nonEmpty(output))
    .catch(() => false);
  if (!ok) await runFfmpeg(bin, ["-i", input, ...frame], { signal, timeoutMs: 60_000 });
  if (!(await nonEmpty(output))) throw new Error("ffmpeg wrote no poster frame");
}

async function nonEmpty(file: string): Promise<boolean> {
  const info = await stat(file).catch(() => null);
  return (info?.size ?? 0) > 0;
}

/** Converts a video to mp4 (H.264/AAC, yuv420p, even dimensions, faststart) for every browser. */
export function convertToMp4(bin: string, input: string, output: string, signal?: AbortSignal) {
  return runFfmpeg(
    bin,
    [
      "-i",
      input,
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
