import { describe, expect, it } from "vitest";
import { decoderStatus, heartbeatUrl } from "./heartbeat.js";

describe("decoderStatus", () => {
  const start = 1_000_000;
  const silentAfter = 60_000;
  it("is unknown before any line, silent once none came for the setting, ok after a line, stopped at the end", () => {
    const state = { lastLineAt: null as number | null, startedAt: start, inputEnded: false };
    expect(decoderStatus(state, silentAfter, start + 1000)).toBe("unknown");
    expect(decoderStatus(state, silentAfter, start + 60_001)).toBe("silent");
    state.lastLineAt = start + 70_000;
    expect(decoderStatus(state, silentAfter, start + 80_000)).toBe("ok");
    expect(decoderStatus(state, silentAfter, start + 130_001)).toBe("silent");
    state.inputEnded = true;
    expect(decoderStatus(state, silentAfter, start + 80_000)).toBe("stopped");
  });

  it("posts to the heartbeat endpoint under a base URL with or without a path", () => {
    expect(heartbeatUrl("http://127.0.0.1:3000/")).toBe("http://127.0.0.1:3000/api/ingest/heartbeat");
    expect(heartbeatUrl("https://x.example/turnout")).toBe("https://x.example/turnout/api/ingest/heartbeat");
  });
});
