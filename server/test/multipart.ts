import { randomBytes } from "node:crypto";
import { Readable } from "node:stream";

/** One part of a multipart/form-data body: a field, or a file when `filename` is given. */
export type FormPart = { name: string; filename?: string; type?: string; data: Buffer | string };

function partHeader(boundary: string, p: FormPart): Buffer {
  const disposition = `form-data; name="${p.name}"${p.filename === undefined ? "" : `; filename="${p.filename}"`}`;
  const type = p.type ? `\r\nContent-Type: ${p.type}` : "";
  return Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}${type}\r\n\r\n`);
}

/** A multipart/form-data body in one buffer, with its content-type header. */
export function formBody(parts: FormPart[]) {
  const boundary = `----turnout${randomBytes(8).toString("hex")}`;
  const chunks: Buffer[] = [];
  for (const p of parts) chunks.push(partHeader(boundary, p), Buffer.from(p.data), Buffer.from("\r\n"));
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return {
    payload: Buffer.concat(chunks),
    headers: { "content-type": `multipart/form-data; boundary=${boundary}` },
  };
}

/**
 * A multipart body with one file of `size` bytes made on the fly (its first bytes `head`), as a stream:
 * a large upload without holding it in memory.
 */
export function streamedFileBody(options: { size: number; head: Buffer; filename: string; type: string }) {
  const boundary = `----turnout${randomBytes(8).toString("hex")}`;
  const chunk = Buffer.alloc(1024 * 1024, 0x41);
  async function* body() {
    yield partHeader(boundary, { name: "file", filename: options.filename, type: options.type, data: "" });
    yield options.head;
    let left = options.size - options.head.length;
    while (left > 0) {
      const n = Math.min(left, chunk.length);
      yield n === chunk.length ? chunk : chunk.subarray(0, n);
      left -= n;
    }
    yield Buffer.from(`\r\n--${boundary}--\r\n`);
  }
  return {
    payload: Readable.from(body(), { objectMode: false }),
    headers: { "content-type": `multipart/form-data; boundary=${boundary}` },
  };
}
