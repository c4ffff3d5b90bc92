import { accessSync, constants, existsSync, mkdirSync, rmSync, statfsSync, writeFileSync } from "node:fs";
import path from "node:path";

/** A fresh embedded database takes about 63 MB (measured: PGlite's data dir after the migrations). */
export const FRESH_DATABASE_BYTES = 63 * 1024 * 1024;
/**
 * Below this much free space the embedded database cannot safely write: one WAL segment is 16 MB, and
 * PGlite opening a database (WAL recovery, its checkpoint) needs about that much before it answers.
 */
export const LOW_FREE_BYTES = 24 * 1024 * 1024;

/** Free bytes (for an unprivileged writer) on the file system holding `dir`, or null when it cannot be read. */
export function freeBytes(dir: string): number | null {
  try {
    const s = statfsSync(dir);
    return Number(s.bavail) * Number(s.bsize);
  } catch {
    return null;
  }
}

const mb = (bytes: number) => `${Math.floor(bytes / (1024 * 1024))} MB`;

/** Error codes that mean the disk will not take a write: full, read-only or not permitted. */
const STORAGE_CODES: Record<string, string> = {
  ENOSPC: "the disk is full",
  EDQUOT: "the disk quota is used up",
  EROFS: "the file system is read-only",
  EACCES: "the server may not write there",
  EPERM: "the server may not write there",
};

/** What an error from the file system says about the disk, in words, or null when it is about something else. */
export function storageProblem(error: unknown): string | null {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? (STORAGE_CODES[code] ?? null) : null;
}

/** An error whose message says plainly why the data directory cannot be used. */
export class StorageStartError extends Error {
  override name = "StorageStartError";
}

/**
 * Checks before the embedded database opens that its directory exists and takes a write, and that
 * there is room for it: a database needs about 63 MB when fresh, an existing one room for WAL.
 * Throws a StorageStartError that says which (PGlite itself only reports a failed CREATE SCHEMA or ENOENT).
 */
export function checkDatabaseDir(dir: string, fresh: boolean): void {
  const where = `the embedded database's directory ${dir}`;
  try {
    mkdirSync(dir, { recursive: true });
    const probe = path.join(dir, `.write-probe-${process.pid}`);
    writeFileSync(probe, "x");
    rmSync(probe, { force: true });
  } catch (err) {
    const problem = storageProblem(err) ?? ancestorProblem(err);
    if (!problem) throw err;
    throw new StorageStartError(`cannot write to ${where}: ${problem} (${(err as Error).message})`);
  }
  const free = freeBytes(dir);
  const needed = fresh ? FRESH_DATABASE_BYTES + LOW_FREE_BYTES : LOW_FREE_BYTES;
  if (free !== null && free < needed) {
    throw new StorageStartError(
      `not enough disk space for ${where}: ${mb(free)} free, ${fresh ? "a fresh database needs about" : "it needs at least"} ${mb(needed)} (see "Disk space for the embedded database" in the README)`,
    );
  }
}

/** The start-up failure in words: the disk's problem when there is one (DATA_DIR full or read-only), else the error's message. */
export function describeStartFailure(error: unknown): string {
  if (error instanceof StorageStartError) return error.message;
  const problem = storageProblem(error) ?? ancestorProblem(error);
  const message = error instanceof Error ? error.message : String(error);
  return problem ? `cannot write to the data directory (DATA_DIR): ${problem} (${message})` : message;
}

/** ENOENT from creating a directory on a read-only file system: the nearest existing parent says why. */
function ancestorProblem(error: unknown): string | null {
  const e = error as { code?: unknown; path?: unknown } | null;
  if (e?.code !== "ENOENT" || typeof e.path !== "string") return null;
  let dir = path.dirname(e.path);
  while (!existsSync(dir) && dir !== path.dirname(dir)) dir = path.dirname(dir);
  try {
    accessSync(dir, constants.W_OK);
    return null;
  } catch (err) {
    return storageProblem(err);
  }
}
