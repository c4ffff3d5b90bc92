import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DATABASE_THREAD_YOUNG_GENERATION_MB, spawn } from "./pglite-thread.js";

describe("the embedded database's thread", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "turnout-pglite-thread-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("opens with its own young generation's size (the server's thread keeps V8's)", async () => {
    const worker = await spawn(dir, new SharedArrayBuffer(8));
    try {
      expect(worker.resourceLimits?.maxYoungGenerationSizeMb).toBe(DATABASE_THREAD_YOUNG_GENERATION_MB);
    } finally {
      await worker.terminate();
    }
  });
});
