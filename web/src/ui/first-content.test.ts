import { afterEach, vi } from "vitest";

// Each test reads a fresh copy of the module: the first content is shown once per page.
async function freshModule() {
  vi.resetModules();
  return import("./first-content");
}

function settled(promise: Promise<void>) {
  let done = false;
  void promise.then(() => {
    done = true;
  });
  return () => done;
}

afterEach(() => {
  Reflect.deleteProperty(document, "hidden");
});

describe("first content", () => {
  it("resolves once the content is marked and a frame has been painted, not before", async () => {
    const { firstContentShown, markFirstContentShown } = await freshModule();
    const shown = settled(firstContentShown);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(shown()).toBe(false);
    markFirstContentShown();
    await Promise.resolve();
    expect(shown()).toBe(false);
    await vi.waitFor(() => expect(shown()).toBe(true));
  });

  it("waits no longer than its maximum when nothing marks it", async () => {
    vi.useFakeTimers();
    const { firstContentShown, FIRST_CONTENT_MAX_WAIT_MS } = await freshModule();
    const shown = settled(firstContentShown);
    await vi.advanceTimersByTimeAsync(FIRST_CONTENT_MAX_WAIT_MS - 1);
    expect(shown()).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(shown()).toBe(true);
  });

  it("does not wait for a frame on a hidden page", async () => {
    const { firstContentShown, markFirstContentShown } = await freshModule();
    Object.defineProperty(document, "hidden", { configurable: true, get: () => true });
    const shown = settled(firstContentShown);
    markFirstContentShown();
    await Promise.resolve();
    await Promise.resolve();
    expect(shown()).toBe(true);
  });

  it("runs a task after the first content in a task of its own, unless cancelled", async () => {
    const { afterFirstContent, markFirstContentShown } = await freshModule();
    const ran: string[] = [];
    afterFirstContent(() => ran.push("kept"));
    const cancel = afterFirstContent(() => ran.push("cancelled"));
    cancel();
    markFirstContentShown();
    await vi.waitFor(() => expect(ran).toEqual(["kept"]));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(ran).toEqual(["kept"]);
  });
});
