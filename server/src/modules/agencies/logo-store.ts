import { randomBytes } from "node:crypto";
import { mkdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";

/** Largest logo accepted, in bytes (2 MB). */
export const LOGO_MAX_BYTES = 2 * 1024 * 1024;

/** The image kinds a logo may be, by the media type a browser declares for them. */
export const LOGO_TYPES = {
  "image/png": "png",
  "image/jpeg": "jpg",
  "image/webp": "webp",
  "image/svg+xml": "svg",
} as const;
export type LogoType = keyof typeof LOGO_TYPES;

/** Where logos live under DATA_DIR, and the URL path (below the plugin prefix) they are served from. */
export const LOGO_DIR_PARTS = ["uploads", "agency-logos"] as const;
export const LOGO_URL_PATH = "/uploads/agency-logos/";

/** The names `save` gives logo files. */
export const LOGO_FILE_NAME = /^\d+-[0-9a-f]{16}\.(png|jpg|webp|svg)$/;

const SVG_START = /^(?:\s|<\?xml[^>]*\?>|<!--[\s\S]*?-->|<!DOCTYPE[^>[]*(?:\[[\s\S]*?\])?\s*>)*<svg[\s>/]/i;

/** What the bytes of a file are, judged by their content, never by a declared type or name. */
export function sniffLogoType(bytes: Buffer): LogoType | null {
  if (bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) {
    return "image/png";
  }
  if (bytes.length > 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return "image/jpeg";
  if (
    bytes.subarray(0, 4).toString("latin1") === "RIFF" &&
    bytes.subarray(8, 12).toString("latin1") === "WEBP"
  ) {
    return "image/webp";
  }
  const head = bytes
    .subarray(0, 4096)
    .toString("utf8")
    .replace(/^\uFEFF/, "");
  if (SVG_START.test(head)) return "image/svg+xml";
  return null;
}

/** Stores agency logo files in one directory and turns them into public URL paths. */
export class LogoStore {
  constructor(
    readonly dir: string,
    /** URL path the directory is served under, ending in '/'. */
    readonly urlPath: string,
  ) {}

  /** Writes a logo as `<agencyId>-<random>.<ext>` and returns its public URL path. */
  async save(agencyId: number, bytes: Buffer, type: LogoType): Promise<string> {
    await mkdir(this.dir, { recursive: true });
    const file = `${agencyId}-${randomBytes(8).toString("hex")}.${LOGO_TYPES[type]}`;
    await writeFile(path.join(this.dir, file), bytes, { flag: "wx" });
    return `${this.urlPath}${file}`;
  }

  /** Removes the file behind a URL path this store handed out; ignores anything else. */
  async remove(urlPath: string | null): Promise<void> {
    if (!urlPath?.startsWith(this.urlPath)) return;
    const file = urlPath.slice(this.urlPath.length);
    if (!LOGO_FILE_NAME.test(file)) return;
    await rm(path.join(this.dir, file), { force: true });
  }
}
