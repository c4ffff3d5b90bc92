import { appendFile, mkdir, open } from "node:fs/promises";
import path from "node:path";
import { maskPhone } from "@turnout/domain";
import type { Logger } from "pino";
import type { SmsProvider } from "./provider.js";

/**
 * The provider used while SMS is disabled: nothing leaves the machine. Each message becomes one JSON
 * line `{"to","body","at","key"}` appended to `file` (parent folders created on first use), so an
 * operator or a test can read sign-in codes from there. The log line names the masked phone, never the
 * body, because bodies carry one-time codes.
 *
 * Keyed by the queue row (`key`): a message whose key is already in the file is not written again, and
 * the send answers as if it had been (the key is its provider message id). So a row sent once, whose
 * worker then died before marking it sent, is recognised when another worker takes it over, also in
 * another process writing the same file. Sends of one provider run one at a time (look, then append);
 * two processes sending the same key at the very same moment could still both write it, which needs a
 * claim to expire while its worker is alive and in the middle of this write.
 */
export function createOutboxProvider(file: string, logger: Logger): SmsProvider {
  const seen = new KeysInFile(file);
  let tail: Promise<unknown> = Promise.resolve();

  async function write(to: string, body: string, key: string | undefined) {
    // Every time, not once: an operator may delete the folder while the server runs.
    await mkdir(path.dirname(file), { recursive: true });
    if (key && (await seen.has(key))) {
      logger.warn({ to: maskPhone(to), provider: "outbox" }, "sms already in the outbox, not written again");
      return { providerMessageId: key };
    }
    const line = `${JSON.stringify({ to, body, at: new Date().toISOString(), ...(key ? { key } : {}) })}\n`;
    // One appendFile per line: an O_APPEND write of a short line lands whole, even with several writers.
    await appendFile(file, line, "utf8");
    logger.info({ to: maskPhone(to), provider: "outbox" }, "sms written to outbox");
    return key ? { providerMessageId: key } : {};
  }

  return {
    name: "outbox",
    send({ to, body, key }) {
      const result = tail.then(() => write(to, body, key));
      tail = result.catch(() => undefined);
      return result;
    },
  };
}

/**
 * The keys of the lines in an append-only JSON-lines file, read incrementally: each look reads only
 * what was appended since the last (by any process). A file that shrank (deleted, emptied) is read
 * again from the start.
 */
class KeysInFile {
  private keys = new Set<string>();
  private offset = 0;

  constructor(private readonly file: string) {}

  async has(key: string): Promise<boolean> {
    await this.catchUp();
    return this.keys.has(key);
  }

  private async catchUp(): Promise<void> {
    let handle: Awaited<ReturnType<typeof open>>;
    try {
      handle = await open(this.file, "r");
    } catch {
      this.reset();
      return;
    }
    try {
      const { size } = await handle.stat();
      if (size < this.offset) this.reset();
      if (size === this.offset) return;
      const buffer = Buffer.alloc(size - this.offset);
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, this.offset);
      // Whole lines only: a line being appended right now is read on the next look.
      const end = buffer.subarray(0, bytesRead).lastIndexOf(0x0a) + 1;
      for (const line of buffer.subarray(0, end).toString("utf8").split("\n")) {
        const key = keyOf(line);
        if (key) this.keys.add(key);
      }
      this.offset += end;
    } finally {
      await handle.close();
    }
  }

  private reset(): void {
    this.keys = new Set();
    this.offset = 0;
  }
}

function keyOf(line: string): string | null {
  if (!line.includes('"key"')) return null;
  try {
    const parsed = JSON.parse(line) as { key?: unknown };
    return typeof parsed.key === "string" ? parsed.key : null;
  } catch {
    return null;
  }
}
