import { randomBytes } from "node:crypto";
import { mkdir, open, opendir, readFile, rename, unlink, writeFile } from "node:fs/promises";
import path from "node:path";
import type { IngestItem } from "./ingest-client.js";
import type { Log } from "./log.js";

/** A message waiting in the spool: its file name (which orders it) and what will be sent. */
export type SpoolEntry = { name: string; item: IngestItem };

export type NewSpoolMessage = { capcode: string; message: string; timestamp: Date; source: string };

export type SpoolOptions = {
  log: Log;
  /** How many names one directory scan keeps (the oldest); bounds memory whatever the spool holds. */
  scanLimit?: number;
};

// <ms since epoch, 15 digits>-<sequence within the ms, 6 digits>-<random>.json: names sort by spool order.
const NAME = /^\d{15}-\d{6}-[0-9a-f]{12}\.json$/;

/**
 * The on-disk spool. Every message is written here, durably, before any network attempt:
 *
 *   <dir>/<name>.json          waiting to be sent, oldest name first
 *   <dir>/tmp/                 files being written (renamed into <dir> once fsynced; leftovers are junk)
 *   <dir>/dead-letter.jsonl    messages the server refused, set aside: one JSON line each, with the
 *                              reason and time (fix and post again by hand; the reader never does)
 *   <dir>/rejected/            spool files that could not be read as a message, each with a .reason.json
 *
 * Only one process should use a spool directory at a time.
 */
export class Spool {
  readonly dir: string;
  readonly tmpDir: string;
  readonly rejectedDir: string;
  readonly deadLetterFile: string;
  private readonly log: Log;
  private readonly scanLimit: number;
  private cache: string[] = [];
  private lastMs = 0;
  private seq = 0;

  constructor(dir: string, options: SpoolOptions) {
    this.dir = path.resolve(dir);
    this.tmpDir = path.join(this.dir, "tmp");
    this.rejectedDir = path.join(this.dir, "rejected");
    this.deadLetterFile = path.join(this.dir, "dead-letter.jsonl");
    this.log = options.log;
    this.scanLimit = Math.max(1, options.scanLimit ?? 5000);
  }

  /** Creates the folders and clears half-written temp files; returns how many messages wait in the spool. */
  async open(): Promise<number> {
    await mkdir(this.tmpDir, { recursive: true });
    await mkdir(this.rejectedDir, { recursive: true });
    const dir = await opendir(this.tmpDir);
    for await (const entry of dir) {
      // A temp file was never renamed, so it was never reported as spooled: it may be partial.
      await unlink(path.join(this.tmpDir, entry.name)).catch(() => {});
    }
    await this.endDeadLetterLine();
    const { total } = await this.scan();
    return total;
  }

  /**
   * Writes one message atomically (temp file, fsync, rename, fsync of the folder) and returns it with
   * its id. When this resolves the message survives a crash or power cut.
   */
  async add(message: NewSpoolMessage): Promise<IngestItem> {
    const now = Date.now();
    if (now > this.lastMs) {
      this.lastMs = now;
      this.seq = 0;
    } else {
      // Same millisecond, or the clock stepped back: keep names increasing so order holds.
      this.seq += 1;
    }
    const random = randomBytes(6).toString("hex");
    const name = `${String(this.lastMs).padStart(15, "0")}-${String(this.seq).padStart(6, "0")}-${random}.json`;
    const item: IngestItem = {
      id: `${safeSource(message.source)}-${this.lastMs}-${random}`,
      capcode: message.capcode,
      message: message.message,
      timestamp: message.timestamp.toISOString(),
      source: message.source,
    };
    const tmpPath = path.join(this.tmpDir, name);
    const file = await open(tmpPath, "wx");
    try {
      await file.writeFile(`${JSON.stringify(item)}\n`);
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(tmpPath, path.join(this.dir, name));
    await syncDir(this.dir);
    return item;
  }

  /**
   * The oldest messages, up to `max`, in spool order. Reads names from a bounded scan (the oldest
   * `scanLimit`), rescanning when those are used up. A file that cannot be read as a message is moved
   * to rejected/ rather than deleted. Names in `held` (messages the sender is holding back) are passed
   * over and kept for later.
   */
  async next(max: number, held: ReadonlySet<string> = new Set()): Promise<SpoolEntry[]> {
    const entries: SpoolEntry[] = [];
    const skipped: string[] = [];
    let scanned = false;
    while (entries.length < max) {
      if (this.cache.length === 0) {
        // An empty answer always comes from a fresh scan, so "empty" really means empty.
        if (scanned || entries.length > 0) break;
        this.cache = (await this.scan()).oldest;
        scanned = true;
        if (this.cache.length === 0) break;
      }
      const name = this.cache.shift() as string;
      if (held.has(name)) {
        skipped.push(name);
        continue;
      }
      let text: string;
      try {
        text = await readFile(path.join(this.dir, name), "utf8");
      } catch (err) {
        if (isNotFound(err)) continue;
        throw err;
      }
      const item = parseItem(text);
      if (item) {
        entries.push({ name, item });
      } else {
        this.log.error("spool_file_unreadable", { file: name });
        await this.moveToRejected([name], { reason: "unreadable spool file" });
      }
    }
    this.cache = [...new Set([...skipped, ...this.cache])];
    return entries;
  }

  /** Reads one message again by its name (a held-back one, due for another try); null once it is gone. */
  async read(name: string): Promise<SpoolEntry | null> {
    try {
      const item = parseItem(await readFile(path.join(this.dir, name), "utf8"));
      return item ? { name, item } : null;
    } catch (err) {
      if (isNotFound(err)) return null;
      throw err;
    }
  }

  /** Forgets a batch the server has stored. */
  async remove(entries: SpoolEntry[]): Promise<void> {
    for (const { name } of entries) {
      await unlink(path.join(this.dir, name)).catch((err: unknown) => {
        if (!isNotFound(err)) throw err;
      });
    }
  }

  /**
   * Sets aside messages the server refused: appends one line per message (the message as it was sent,
   * its reason and the time) to dead-letter.jsonl in one write, flushes it to disk, and only then takes
   * the messages out of the spool. A crash in between leaves a message in both; it is sent again and
   * set aside again, never lost.
   */
  async setAside(refused: { entry: SpoolEntry; reason: Record<string, unknown> }[]): Promise<void> {
    if (refused.length === 0) return;
    const at = new Date().toISOString();
    const lines = refused
      .map(({ entry, reason }) => `${JSON.stringify({ ...entry.item, ...reason, at })}\n`)
      .join("");
    const file = await open(this.deadLetterFile, "a");
    try {
      await file.writeFile(lines);
      await file.sync();
    } finally {
      await file.close();
    }
    await syncDir(this.dir);
    await this.remove(refused.map((r) => r.entry));
    await syncDir(this.dir);
  }

  /** Puts entries back at the front (a stop interrupted their delivery; they stay on disk anyway). */
  unread(entries: SpoolEntry[]): void {
    this.cache = [...entries.map((e) => e.name), ...this.cache];
  }

  private async moveToRejected(names: string[], reason: Record<string, unknown>): Promise<void> {
    for (const name of names) {
      const base = name.replace(/\.json$/, "");
      await writeFile(
        path.join(this.rejectedDir, `${base}.reason.json`),
        `${JSON.stringify({ ...reason, at: new Date().toISOString() })}\n`,
      );
      await rename(path.join(this.dir, name), path.join(this.rejectedDir, name)).catch((err: unknown) => {
        if (!isNotFound(err)) throw err;
      });
    }
    await syncDir(this.rejectedDir);
    await syncDir(this.dir);
  }

  /** A line cut short by a crash mid-append must not run into the next one: end it. */
  private async endDeadLetterLine(): Promise<void> {
    let file: Awaited<ReturnType<typeof open>>;
    try {
      file = await open(this.deadLetterFile, "r+");
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
    try {
      const { size } = await file.stat();
      if (size === 0) return;
      const last = Buffer.alloc(1);
      await file.read(last, 0, 1, size - 1);
      if (last[0] !== 0x0a) {
        await file.write("\n", size);
        await file.sync();
      }
    } finally {
      await file.close();
    }
  }

  /** Messages waiting in the spool now (one pass over the folder; for the heartbeat). */
  async depth(): Promise<number> {
    return (await this.scan()).total;
  }

  /** Messages set aside in dead-letter.jsonl (its lines; 0 when there is none). */
  async deadLetters(): Promise<number> {
    try {
      const text = await readFile(this.deadLetterFile, "utf8");
      return text.split("\n").filter((l) => l.trim() !== "").length;
    } catch {
      return 0;
    }
  }

  /** One pass over the folder keeping only the `scanLimit` smallest names (memory stays bounded). */
  private async scan(): Promise<{ oldest: string[]; total: number }> {
    let names: string[] = [];
    let total = 0;
    const dir = await opendir(this.dir);
    for await (const entry of dir) {
      if (!entry.isFile() || !NAME.test(entry.name)) continue;
      total += 1;
      names.push(entry.name);
      if (names.length >= this.scanLimit * 2) names = names.sort().slice(0, this.scanLimit);
    }
    return { oldest: names.sort().slice(0, this.scanLimit), total };
  }
}

function parseItem(text: string): IngestItem | null {
  try {
    const v: unknown = JSON.parse(text);
    if (typeof v !== "object" || v === null) return null;
    const o = v as Record<string, unknown>;
    const fields = ["id", "capcode", "message", "timestamp", "source"] as const;
    if (!fields.every((f) => typeof o[f] === "string")) return null;
    return {
      id: o.id as string,
      capcode: o.capcode as string,
      message: o.message as string,
      timestamp: o.timestamp as string,
      source: o.source as string,
    };
  } catch {
    return null;
  }
}

/** The source as it appears inside ids: letters, digits, dot, dash and underscore. */
function safeSource(source: string): string {
  return source.replace(/[^A-Za-z0-9._-]+/g, "_").slice(0, 64) || "reader";
}

async function syncDir(dir: string): Promise<void> {
  // A rename is durable only once the folder itself is flushed. Not every platform can fsync a folder.
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    handle = await open(dir, "r");
    await handle.sync();
  } catch {
    // best effort
  } finally {
    await handle?.close();
  }
}

function isNotFound(err: unknown): boolean {
  return typeof err === "object" && err !== null && (err as { code?: unknown }).code === "ENOENT";
}
