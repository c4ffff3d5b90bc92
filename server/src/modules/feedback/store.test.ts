import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { MediaStore } from "./store.js";

describe("the media store's temp files", () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), "turnout-store-"));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it("sweeps a crashed process's partial uploads at start, and leaves another instance's in progress", async () => {
    const store = new MediaStore(dataDir, new Uint8Array(32));
    const host = hostname().replace(/[^A-Za-z0-9_]/g, "_");
    // A pid that has certainly ended: a child that already exited.
    const deadPid = spawnSync(process.execPath, ["-e", "0"]).pid;
    const files = {
      ownEarlierLife: `${host}.${process.pid}-aaaa.part`,
      deadProcess: `${host}.${deadPid}-bbbb.part`,
      liveInstance: `${host}.${process.ppid}-cccc.part`,
      otherHostFresh: "other_host.42-dddd.part",
      otherHostOld: "other_host.43-eeee.part",
      legacyOld: "ffff.part",
    };
    for (const name of Object.values(files)) writeFileSync(path.join(store.tmpDir, name), "x");
    const old = new Date(Date.now() - 7 * 3600_000);
    for (const name of [files.otherHostOld, files.legacyOld])
      utimesSync(path.join(store.tmpDir, name), old, old);

    const removed = await store.sweepTemp();
    expect(new Set(removed)).toEqual(
      new Set([files.ownEarlierLife, files.deadProcess, files.otherHostOld, files.legacyOld]),
    );
    expect(new Set(readdirSync(store.tmpDir))).toEqual(new Set([files.liveInstance, files.otherHostFresh]));
    // New temp files carry this process as their owner.
    expect(path.basename(store.newTempPath(".part"))).toMatch(
      new RegExp(`^${host}\\.${process.pid}-[0-9a-f]{32}\\.part$`),
    );
  });
});
