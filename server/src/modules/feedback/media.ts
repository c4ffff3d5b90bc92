import { open, rename, rm } from "node:fs/promises";
import { Transform, type TransformCallback } from "node:stream";
import { pipeline } from "node:stream/promises";
import { FEEDBACK_ATTACHMENT_MAX_BYTES, needsVideoConversion } from "@turnout/domain";
import pLimit from "p-limit";
import { AppError, badRequest } from "../../errors.js";
import { assertImagePixels, loadSharp, readImageHeader } from "../../support/image-header.js";
import { probeVideo, type VideoFacts } from "./ffmpeg.js";
import type { NewMedia } from "./service.js";
import { type MediaType, SNIFF_BYTES, sniffMediaType } from "./sniff.js";
import type { MediaStore } from "./store.js";

/** Width of image thumbnails and video posters, at most. */
export const THUMBNAIL_WIDTH = 480;

export const FILE_TOO_LARGE_MESSAGE = "The file is too large. Please choose a file smaller than 100MB.";
export const UNSUPPORTED_TYPE_MESSAGE =
  "This file type is not supported. Please choose a photo (JPEG, PNG, GIF, WebP, HEIC) or a video (MP4, MOV, WebM).";

/** 413 for an attachment of 100 MB or more. */
export const fileTooLarge = () => new AppError(413, "validation_error", FILE_TOO_LARGE_MESSAGE);
const unsupportedType = () => badRequest(UNSUPPORTED_TYPE_MESSAGE);

/** Longest display name kept for an uploaded file. */
const FILE_NAME_MAX = 200;

/**
 * The name a user's file had, for display only: no path parts, no control or bidi-override characters,
 * at most 200 characters; `attachment.<ext>` when nothing is left.
 */
export function displayFileName(declared: string | undefined, ext: string): string {
  const base = (declared ?? "").split(/[/\\]/).pop() ?? "";
  const clean = base
    // biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point
    .replace(/[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, "")
    .replace(/[\uD800-\uDFFF]/g, (ch, at: number, all: string) => (isPaired(all, at) ? ch : ""))
    .trim();
  if (clean === "" || clean === "." || clean === "..") return `attachment.${ext}`;
  return Array.from(clean).slice(0, FILE_NAME_MAX).join("");
}

function isPaired(s: string, at: number): boolean {
  const code = s.charCodeAt(at);
  if (code <= 0xdbff) return at + 1 < s.length && (s.charCodeAt(at + 1) & 0xfc00) === 0xdc00;
  return at > 0 && (s.charCodeAt(at - 1) & 0xfc00) === 0xd800;
}

/**
 * Passes a file through while deciding its type from its first bytes: nothing reaches the disk until the
 * type is known, and a file of any other type fails the stream at once (the rest is never read).
 */
class SniffingStream extends Transform {
  type: MediaType | null = null;
  size = 0;
  private head: Buffer[] = [];
  private headBytes = 0;

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.size += chunk.length;
    if (this.type) {
      done(null, chunk);
      return;
    }
    this.head.push(chunk);
    this.headBytes += chunk.length;
    if (this.headBytes < SNIFF_BYTES) done();
    else this.decide(done);
  }

  override _flush(done: TransformCallback): void {
    if (this.type) done();
    else this.decide(done);
  }

  private decide(done: TransformCallback): void {
    const head = Buffer.concat(this.head);
    this.head = [];
    this.type = sniffMediaType(head);
    if (this.type) done(null, head);
    else done(unsupportedType());
  }
}

/** A multipart file part, as much of it as the upload needs. */
export type FilePart = { file: NodeJS.ReadableStream & { truncated?: boolean }; filename?: string };

/** An upload written to the store under its final name, not yet recorded. */
export type StoredFile = { name: string; type: MediaType; size: number; fileName: string };

/**
 * Streams a file part to a temp file while sniffing its type, then moves it under a new random name.
 * 413 when it reaches the limit (busboy's fileSize limit), 400 for a type that is not accepted; in both
 * cases nothing is left on disk.
 */
export async function storeUpload(store: MediaStore, part: FilePart): Promise<StoredFile> {
  const temp = store.newTempPath(".part");
  const sniffer = new SniffingStream();
  // Opened before the stream starts: a write stream opens its file on its own time, so a part refused
  // within its first bytes could create the file after the cleanup below had removed it (seen in CI as
  // a .part left behind).
  const file = await open(temp, "wx");
  try {
    await pipeline(part.file, sniffer, file.createWriteStream());
    if (part.file.truncated || sniffer.size >= FEEDBACK_ATTACHMENT_MAX_BYTES) throw fileTooLarge();
    const type = sniffer.type!;
    const name = store.newName(type.ext);
    await rename(temp, store.pathOf(name));
    return { name, type, size: sniffer.size, fileName: displayFileName(part.filename, type.ext) };
  } catch (err) {
    await rm(temp, { force: true });
    if ((err as { code?: string }).code === "FST_REQ_FILE_TOO_LARGE") throw fileTooLarge();
    throw err;
  } finally {
    // The stream closes it when it ends or fails; this only covers a stream that never got to.
    await file.close().catch(() => {});
  }
}

/** What the upload path needs of the server's media settings (config.media). */
export type UploadLimits = { maxImagePixels: number; maxVideoSeconds: number; maxVideoPixels: number };

/** At most this many ffprobe runs at once in this process (each a few tens of milliseconds). */
const probes = pLimit(1);

/**
 * The media row of a stored file. An image whose header declares more than `limits.maxImagePixels` is
 * refused (400), any other gets a webp thumbnail (none when it cannot be made: HEIC, which the
 * prebuilt libvips does not decode, or a damaged file; the file is still kept). A video is read by
 * ffprobe first (headers only) and refused (400) when it cannot be read, is longer than
 * `maxVideoSeconds` or has frames over `maxVideoPixels`; its poster, and its conversion when it is not
 * mp4 or webm, become jobs of the media queue. Without ffmpeg a video is kept as it is, and one that
 * would need converting is 'unavailable'.
 */
export async function describeUpload(
  store: MediaStore,
  file: StoredFile,
  ffmpeg: { path: string; probePath: string; available: boolean },
  limits: UploadLimits,
): Promise<NewMedia> {
  const base = {
    fileName: file.fileName,
    fileType: file.type.mime,
    filePath: file.name,
    sizeBytes: file.size,
  };
  if (file.type.kind === "image") {
    assertImagePixels(await readImageHeader(store.pathOf(file.name)), limits.maxImagePixels);
    return { ...base, thumbnailPath: await imageThumbnail(store, file.name), conversionStatus: "none" };
  }
  const convert = needsVideoConversion(file.type.mime);
  if (!ffmpeg.available) {
    return { ...base, thumbnailPath: null, conversionStatus: convert ? "unavailable" : "none" };
  }
  const facts = await probes(() => probeVideo(ffmpeg.probePath, store.pathOf(file.name))).catch(() => {
    throw badRequest(VIDEO_UNREADABLE_MESSAGE);
  });
  assertVideoLimits(facts, limits);
  return {
    ...base,
    thumbnailPath: null,
    posterPending: true,
    conversionStatus: convert ? "pending" : "none",
  };
}

export const VIDEO_UNREADABLE_MESSAGE =
  "This video could not be read. Please choose another file (MP4, MOV or WebM).";

/** 400 for a video longer or with larger frames than the server takes. */
function assertVideoLimits(facts: VideoFacts, limits: UploadLimits): void {
  if (facts.durationSeconds > limits.maxVideoSeconds) {
    throw badRequest(
      `The video is too long: ${formatDuration(facts.durationSeconds)}; at most ${formatDuration(limits.maxVideoSeconds)}. Please send a shorter clip.`,
    );
  }
  if (facts.width * facts.height > limits.maxVideoPixels) {
    throw badRequest(
      `The video's picture is too large: ${facts.width} x ${facts.height} pixels; at most ${Math.round(limits.maxVideoPixels / 1e5) / 10} megapixels (4K is 8.3). Please send it at a lower resolution.`,
    );
  }
}

function formatDuration(seconds: number): string {
  const whole = Math.ceil(seconds);
  const minutes = Math.floor(whole / 60);
  const rest = whole % 60;
  if (minutes === 0) return `${rest} s`;
  return rest === 0 ? `${minutes} min` : `${minutes} min ${rest} s`;
}

async function imageThumbnail(store: MediaStore, source: string): Promise<string | null> {
  const name = store.newName("webp");
  try {
    // limitInputPixels (default 268 MP) refuses decompression bombs before decoding them.
    const { default: sharp } = await loadSharp();
    await sharp(store.pathOf(source), { failOn: "error" })
      .rotate()
      .resize({ width: THUMBNAIL_WIDTH, withoutEnlargement: true })
      .webp({ quality: 75 })
      .toFile(store.pathOf(name));
    return name;
  } catch {
    await store.remove([name]);
    return null;
  }
}
