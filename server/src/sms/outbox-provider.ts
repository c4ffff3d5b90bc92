import { appendFile, mkdir } from "node:fs/promises";
import path from "node:path";
import { maskPhone } from "@turnout/domain";
import type { Logger } from "pino";
import type { SmsProvider } from "./provider.js";

/**
 * The provider used while SMS is disabled: nothing leaves the machine. Each message becomes one JSON
 * line `{"to","body","at"}` appended to `file` (parent folders created on first use), so an operator
 * or a test can read sign-in codes from there. The log line names the masked phone, never the body,
 * because bodies carry one-time codes.
 */
export function createOutboxProvider(file: string, logger: Logger): SmsProvider {
  return {
    name: "outbox",
    async send({ to, body }) {
      // Every time, not once: an operator may delete the folder while the server runs.
      await mkdir(path.dirname(file), { recursive: true });
      const line = `${JSON.stringify({ to, body, at: new Date().toISOString() })}\n`;
      // One appendFile per line: an O_APPEND write of a short line lands whole, even with several writers.
      await appendFile(file, line, "utf8");
      logger.info({ to: maskPhone(to), provider: "outbox" }, "sms written to outbox");
      return {};
    },
  };
}
