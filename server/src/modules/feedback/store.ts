import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { mkdirSync } from "node:fs";
import { readdir, rm, stat } from "node:fs/promises";
import { hostname } from "node:os";
import path from "node:path";
import { MEDIA_TYPES_BY_EXT } from "./sniff.js";

/** URL path media is served under (at the root, not under /api). */
export const MEDIA_URL_PATH = "/feedback-uploads/";

/** The names the store gives files: 128 random bits in hex and an accepted extension. Nothing else is served. */
export const MEDIA_NAME = new RegExp(`^[0-9a-f]{32}\\.(?:${Object.keys(MEDIA_TYPES_BY_EXT).join("|")})$`);

/** A signed link is good for at least this long (and at most LINK_BUCKET_SECONDS more). */
export const LINK_TTL_SECONDS = 3600;
/**
 * Expiry times are rounded up to this step, so the links of one file stay the same for ten minutes and
 * a browser's cache of an <img> keeps working across refetches of the thread.
 */
const LINK_BUCKET_SECONDS = 600;

/** Temp files older than this at start-up belong to an upload or conversion that died with its process. */
const STALE_TEMP_MS = 6 * 3600_000;

/**
 * Who writes a temp file: this host and process, in its name (`<host>.<pid>-<random><suffix>`), so a
 * start can tell a crashed process's partial files (this host, a pid no longer running, or its own
 * pid: a container's process is pid 1 every time) from those of another instance still writing them.
 */
const tempOwner = (pid = process.pid) => `${hostname().replace(/[^A-Za-z0-9_]/g, "_")}.${pid}`;
const TEMP_OWNER = /^([A-Za-z0-9_]+)\.(\d+)-/;

/** Whether process `pid` runs on this host (signal 0 checks without sending anything). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Feedback media files: stored flat in `<DATA_DIR>/feedback-uploads/` under random names, with a
 * `tmp/` directory beside them for uploads still arriving and conversions in progress (never served).
 * Hands out signed links (HMAC-SHA256 over name and expiry, with a key derived from the JWT secret).
 */
export class MediaStore {
  readonly dir: string;
  readonly tmpDir: string;
  private readonly key: Buffer;

  constructor(dataDir: string, jwtSecret: Uint8Array) {
    this.dir = path.join(dataDir, "feedback-uploads");
    this.tmpDir = path.join(this.dir, "tmp");
    mkdirSync(this.tmpDir, { recursive: true });
    this.key = createHmac("sha256", jwtSecret).update("turnout feedback media links v1").digest();
  }

  /** A new unguessable file name with the given extension. */
  newName(ext: string): string {
    return `${randomBytes(16).toString("hex")}.${ext}`;
  }

  /** A new path in the temp directory, named for this process (see tempOwner). */
  newTempPath(suffix: string): string {
    return path.join(this.tmpDir, `${tempOwner()}-${randomBytes(16).toString("hex")}${suffix}`);
  }

  /** The full path of a stored name; throws for anything that is not a name this store gives. */
  pathOf(name: string): string {
    if (!MEDIA_NAME.test(name)) throw new Error("not a feedback media name");
    return path.join(this.dir, name);
  }

  /** Removes stored files by name; names that are not the store's are ignored, missing files too. */
  async remove(names: readonly (string | null | undefined)[]): Promise<void> {
    await Promise.all(
      names
        .filter((n): n is string => typeof n === "string" && MEDIA_NAME.test(n))
        .map((n) => rm(path.join(this.dir, n), { force: true })),
    );
  }

  /**
   * Deletes temp files left by a process that died mid-upload or mid-conversion (kill -9, a crash):
   * at once those of this host whose process is gone (or was this pid: an earlier life of this
   * process's pid), after STALE_TEMP_MS those of other hosts sharing DATA_DIR (their processes cannot
   * be asked). Another instance's upload in progress is left alone. Returns the files removed.
   */
  async sweepTemp(now = Date.now()): Promise<string[]> {
    const removed: string[] = [];
    const here = tempOwner().split(".")[0];
    for (const entry of await readdir(this.tmpDir).catch(() => [] as string[])) {
      const file = path.join(this.tmpDir, entry);
      const owner = TEMP_OWNER.exec(entry);
      const pid = Number(owner?.[2]);
      const orphaned =
        owner?.[1] === here && (pid === process.pid || !running(pid))
          ? true
          : ((await stat(file).catch(() => null))?.mtimeMs ?? now) < now - STALE_TEMP_MS;
      if (!orphaned) continue;
      await rm(file, { force: true });
      removed.push(entry);
    }
    return removed;
  }

  /** `/feedback-uploads/<name>?exp=..&sig=..`, valid for an hour or a little more. */
  signedUrl(name: string, nowMs = Date.now()): string {
    const minimum = Math.floor(nowMs / 1000) + LINK_TTL_SECONDS;
    const exp = Math.ceil(minimum / LINK_BUCKET_SECONDS) * LINK_BUCKET_SECONDS;
    return `${MEDIA_URL_PATH}${name}?exp=${exp}&sig=${this.sign(name, exp)}`;
  }

  /** Whether `exp` and `sig` from a link are a valid, unexpired signature of `name`. */
  verify(name: string, exp: unknown, sig: unknown, nowMs = Date.now()): boolean {
    if (typeof exp !== "string" || typeof sig !== "string") return false;
    if (!/^\d{1,12}$/.test(exp) || !/^[0-9a-f]{64}$/.test(sig)) return false;
    const expires = Number(exp);
    const now = Math.floor(nowMs / 1000);
    if (expires <= now || expires > now + LINK_TTL_SECONDS + LINK_BUCKET_SECONDS) return false;
    return timingSafeEqual(Buffer.from(sig, "hex"), Buffer.from(this.sign(name, expires), "hex"));
  }

  private sign(name: string, exp: number): string {
    return createHmac("sha256", this.key).update(`${name}\n${exp}`).digest("hex");
  }
}
