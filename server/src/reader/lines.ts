import type { Readable } from "node:stream";

const utf8 = new TextDecoder("utf-8", { fatal: true });
const latin1 = new TextDecoder("latin1");

/**
 * Splits a byte stream into lines. multimon-ng builds differ in charset (UTF-8, Latin-1 or plain ASCII),
 * so each line is read as UTF-8 when it is valid UTF-8 and as Latin-1 otherwise. A line longer than
 * `maxBytes` is cut there (decoder output never comes close; this only bounds memory on garbage input).
 */
export async function* readLines(input: Readable, maxBytes = 64 * 1024): AsyncGenerator<string> {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  for await (const chunk of input) {
    let buf = typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Buffer);
    for (let nl = buf.indexOf(0x0a); nl !== -1; nl = buf.indexOf(0x0a)) {
      pending.push(buf.subarray(0, nl));
      yield decode(Buffer.concat(pending));
      pending = [];
      pendingBytes = 0;
      buf = buf.subarray(nl + 1);
    }
    if (buf.length > 0) {
      pending.push(buf);
      pendingBytes += buf.length;
      if (pendingBytes >= maxBytes) {
        yield decode(Buffer.concat(pending));
        pending = [];
        pendingBytes = 0;
      }
    }
  }
  if (pendingBytes > 0) yield decode(Buffer.concat(pending));
}

function decode(bytes: Buffer): string {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    text = latin1.decode(bytes);
  }
  return text.endsWith("\r") ? text.slice(0, -1) : text;
}
