import { installFakeAudio } from "../testing/alarm/fake-audio";
import { ALARM_SOUND_MS, AlarmPlayer, PREPARE_AUDIO_AFTER_MS, VIBRATION } from "./alarm-player";

/** A Screen Wake Lock whose sentinels the test can see. */
function fakeWakeLock() {
  const sentinels: Array<{ released: boolean; release: () => Promise<void> }> = [];
  const wakeLock = {
    request: vi.fn(async () => {
      const listeners: Array<() => void> = [];
      const sentinel = {
        released: false,
        release: async () => {
          sentinel.released = true;
          for (const listener of listeners) listener();
        },
        addEventListener: (_type: string, listener: () => void) => listeners.push(listener),
      };
      sentinels.push(sentinel);
      return sentinel;
    }),
  };
  Object.defineProperty(navigator, "wakeLock", { configurable: true, value: wakeLock });
  return { wakeLock, sentinels };
}

function player() {
  return new AlarmPlayer({
    AudioContext: (window as unknown as { AudioContext: typeof AudioContext }).AudioContext,
    navigator,
    document,
    window,
  });
}

afterEach(() => {
  Reflect.deleteProperty(navigator, "vibrate");
  Reflect.deleteProperty(navigator, "wakeLock");
});

describe("the alarm player", () => {
  it("is locked until the first tap, which starts the audio; then it rings and can be silenced", async () => {
    const audio = installFakeAudio();
    const alarm = player();
    const states: boolean[] = [];
    alarm.subscribe((state) => states.push(state.locked));
    expect(alarm.getState().locked).toBe(true);
    window.dispatchEvent(new Event("pointerdown"));
    expect(alarm.getState()).toEqual({ locked: false, blocked: false, sounding: null });

    expect(await alarm.ring("alarm", 0)).toBe(true);
    expect(audio.started).toEqual([{ wave: "square", contextState: "running" }]);
    expect(audio.vibrate).toHaveBeenCalledWith(VIBRATION.alarm);
    expect(alarm.getState().sounding).toBe("alarm");
    // A soft tone for another job does not cut the alarm short.
    await alarm.ring("soft", 0);
    expect(audio.started).toHaveLength(1);
    alarm.stop();
    expect(alarm.getState().sounding).toBeNull();
    expect(audio.vibrate).toHaveBeenLastCalledWith(0);
    await alarm.ring("soft", 0);
    expect(audio.started.at(-1)).toEqual({ wave: "sine", contextState: "running" });
    // Once unlocked, it stayed so through every change it reported.
    expect(states.length).toBeGreaterThan(2);
    expect(states).not.toContain(true);
    alarm.dispose();
  });

  it("says the sound was blocked when the browser will not start audio, and a tap clears it", async () => {
    const audio = installFakeAudio({ refuseResume: true });
    const alarm = player();
    expect(await alarm.ring("alarm", 0)).toBe(false);
    expect(alarm.getState()).toMatchObject({ locked: true, blocked: true });
    expect(audio.vibrate).toHaveBeenCalledWith(VIBRATION.alarm);
    window.dispatchEvent(new Event("keydown"));
    expect(alarm.getState()).toMatchObject({ locked: false, blocked: false });
    alarm.dispose();
  });

  it("makes its audio context a while after it is made, off the first tap's and the first page's way", async () => {
    vi.useFakeTimers();
    try {
      const audio = installFakeAudio();
      const alarm = player();
      vi.advanceTimersByTime(PREPARE_AUDIO_AFTER_MS - 1);
      expect(audio.contexts).toHaveLength(0);
      vi.advanceTimersByTime(1);
      // jsdom has no requestIdleCallback: made at once; a browser waits for its next idle moment.
      expect(audio.contexts).toHaveLength(1);
      expect(audio.contexts[0]!.state).toBe("suspended");
      // The tap resumes that context rather than making another, and the sound plays on it.
      window.dispatchEvent(new Event("pointerdown"));
      await vi.waitFor(() => expect(audio.contexts[0]!.state).toBe("running"));
      expect(await alarm.ring("soft", 0)).toBe(true);
      expect(audio.contexts).toHaveLength(1);
      expect(audio.started).toEqual([{ wave: "sine", contextState: "running" }]);
      alarm.dispose();

      // A player gone sooner makes none.
      const brief = player();
      brief.dispose();
      vi.advanceTimersByTime(PREPARE_AUDIO_AFTER_MS);
      expect(audio.contexts).toHaveLength(1);
    } finally {
      vi.useRealTimers();
    }
  });

  it("keeps the screen awake for the chosen time, again after the page was hidden, then lets it go", async () => {
    vi.useFakeTimers();
    installFakeAudio();
    const { wakeLock, sentinels } = fakeWakeLock();
    const alarm = player();
    window.dispatchEvent(new Event("pointerdown"));
    await alarm.ring("alarm", 60_000);
    await vi.advanceTimersByTimeAsync(0);
    expect(wakeLock.request).toHaveBeenCalledWith("screen");
    // Hidden, the browser lets the lock go; visible again within the time, it is taken again.
    await sentinels[0]!.release();
    await vi.advanceTimersByTimeAsync(ALARM_SOUND_MS);
    document.dispatchEvent(new Event("visibilitychange"));
    await vi.advanceTimersByTimeAsync(0);
    expect(wakeLock.request).toHaveBeenCalledTimes(2);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(sentinels[1]!.released).toBe(true);
    document.dispatchEvent(new Event("visibilitychange"));
    await vi.advanceTimersByTimeAsync(0);
    expect(wakeLock.request).toHaveBeenCalledTimes(2);
    // The soft tone never holds the screen on.
    await alarm.ring("soft", 60_000);
    expect(wakeLock.request).toHaveBeenCalledTimes(2);
    alarm.dispose();
  });
});
