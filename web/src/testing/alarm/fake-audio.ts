import { vi } from "vitest";

/** One sound the page started: the oscillator's wave and the context's state at that moment. */
export interface StartedSound {
  wave: string;
  contextState: string;
}

function param() {
  return {
    value: 0,
    setValueAtTime: vi.fn(),
    linearRampToValueAtTime: vi.fn(),
    exponentialRampToValueAtTime: vi.fn(),
  };
}

/**
 * A Web Audio context for jsdom (which has none): suspended until resumed, as browsers keep it before
 * the first tap (or always, with `refuseResume`), recording each oscillator started.
 */
export function installFakeAudio({ refuseResume = false }: { refuseResume?: boolean } = {}) {
  const started: StartedSound[] = [];
  /** Every context the page made, oldest first. */
  const contexts: { state: string }[] = [];
  class FakeAudioContext {
    constructor() {
      contexts.push(this);
    }
    state: "suspended" | "running" | "closed" = "suspended";
    currentTime = 0;
    destination = {};
    resume = vi.fn(async () => {
      if (!refuseResume) this.state = "running";
    });
    close = vi.fn(async () => {
      this.state = "closed";
    });
    createBuffer = vi.fn(() => ({}));
    createBufferSource = vi.fn(() => ({ buffer: null, connect: vi.fn(), start: vi.fn() }));
    createGain = vi.fn(() => ({ gain: param(), connect: vi.fn((next: unknown) => next) }));
    createOscillator = vi.fn(() => {
      const context = this;
      return {
        type: "sine",
        frequency: param(),
        connect: vi.fn((next: unknown) => next),
        start: vi.fn(function (this: { type: string }) {
          started.push({ wave: this.type, contextState: context.state });
        }),
        stop: vi.fn(),
      };
    });
  }
  vi.stubGlobal("AudioContext", FakeAudioContext);
  const vibrate = vi.fn(() => true);
  Object.defineProperty(navigator, "vibrate", { configurable: true, writable: true, value: vibrate });
  return { started, contexts, vibrate };
}
