import { constants } from "node:zlib";
import compress from "@fastify/compress";
import type { FastifyInstance } from "fastify";

/** Answers smaller than this go as they are: compressing them saves less than it costs. */
const COMPRESS_THRESHOLD_BYTES = 1024;

/**
 * Answers of COMPRESS_THRESHOLD_BYTES and more are compressed for a client that asks (brotli at a fast
 * quality, else gzip). A feed page of 50 cards is ~75 KB of JSON and ~10 KB compressed: on a phone's
 * slow connection that transfer was most of the time before the first card (issue 31). Static files
 * keep their precompressed copies (web.ts). Request bodies are not decompressed: every contract's
 * size limit applies to the bytes received (issue 28), and a compressed body is refused as before.
 */
export async function registerResponseCompression(app: FastifyInstance): Promise<void> {
  await app.register(compress, {
    global: true,
    globalDecompression: false,
    threshold: COMPRESS_THRESHOLD_BYTES,
    encodings: ["br", "gzip"],
    brotliOptions: { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } },
  });
}
