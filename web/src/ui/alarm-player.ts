import type { AlarmTone } from "@turnout/domain";

/**
 * How long each sound lasts. The alarm is a pager's hi-lo beeping, long enough to be heard from the
 * next room; the soft tone is a two-note chime.
 */
export const ALARM_SOUND_MS = 6_000;
export const SOFT_SOUND_MS = 700;

/** Vibration patterns (ms on, off, on...): the alarm long and insistent, the soft tone one short buzz. */
export const VIBRATION: Record<AlarmTone, number[]> = {
  alarm: [500, 150, 500, 150, 500, 150, 900],
  soft: [180],
};

/** How long a sound may wait for a blocked audio context to start before it counts as blocked. */
const RESUME_WAIT_MS = 400;

/**
 * The audio context is made this long after the player, when the page is next idle (or at the first
 * tap or sound, if sooner): making one held the main thread 50-58 ms in Chromium under the phone
 * profile (bench/web/feed.ts burst), a stall when it happens as the page loads, in the first tap, or as
 * the first page arrives (issue 31). Made before a tap, it waits suspended until the tap resumes it.
 */
export const PREPARE_AUDIO_AFTER_MS = 10_000;

/** The alarm's two beeps (Hz), alternating; far from common ringtones and notification chimes. */
const ALARM_HIGH_HZ = 1_400;
const ALARM_LOW_HZ = 1_050;
const BEEP_S = 0.12;
const BEEP_GAP_S = 0.03;
const BEEPS_PER_BURST = 8;
const BURST_PAUSE_S = 0.3;

type AudioContextClass = typeof AudioContext;

/** What the alarm looks like from outside: whether sound is allowed yet and what is playing. */
export interface AlarmPlayerState {
  /** The browser has not let the page play sound yet (no tap since the page loaded). */
  locked: boolean;
  /** A sound was due but the browser blocked it. */
  blocked: boolean;
  /** What is sounding now. */
  sounding: AlarmTone | null;
}

/** The browser features the player uses, replaceable in tests. */
export interface AlarmPlayerEnvironment {
  AudioContext: AudioContextClass | undefined;
  navigator: Navigator;
  document: Document;
  window: Window;
}

function defaultEnvironment(): AlarmPlayerEnvironment {
  const w = window as unknown as { AudioContext?: AudioContextClass; webkitAudioContext?: AudioContextClass };
  return { AudioContext: w.AudioContext ?? w.webkitAudioContext, navigator, document, window };
}

const GESTURES = ["pointerdown", "keydown", "touchend"] as const;

/**
 * Plays the alarm and the soft tone (synthesised with the Web Audio API: no audio file, no licence
 * question), vibrates, and keeps the screen awake. Browsers refuse sound until the page has had a
 * tap or key press: the audio context is created or resumed inside the first such gesture (and any
 * later one, after a phone call interrupted it), and until then the state says `locked`.
 */
export class AlarmPlayer {
  private context: AudioContext | null = null;
  private source: { stop: () => void } | null = null;
  private soundTimer: number | undefined;
  private wakeLock: WakeLockSentinel | null = null;
  private awakeUntil = 0;
  private awakeTimer: number | undefined;
  private state: AlarmPlayerState;
  private readonly listeners = new Set<(state: AlarmPlayerState) => void>();
  private readonly env: AlarmPlayerEnvironment;
  private prepareTimer: number | undefined;
  private prepareIdle: number | undefined;

  constructor(env: AlarmPlayerEnvironment = defaultEnvironment()) {
    this.env = env;
    const activation = (env.navigator as Navigator & { userActivation?: { hasBeenActive: boolean } })
      .userActivation;
    this.state = { locked: activation?.hasBeenActive !== true, blocked: false, sounding: null };
    for (const type of GESTURES) env.window.addEventListener(type, this.handleGesture, true);
    env.document.addEventListener("visibilitychange", this.handleVisibility);
    this.prepareTimer = env.window.setTimeout(() => {
      const idle = env.window as Window & Partial<Pick<Window, "requestIdleCallback">>;
      if (idle.requestIdleCallback)
        this.prepareIdle = idle.requestIdleCallback(() => this.ensureContext(), { timeout: 5_000 });
      else this.ensureContext();
    }, PREPARE_AUDIO_AFTER_MS);
  }

  /** Stops listening for gestures and page visibility, and ends any sound and wake lock. */
  dispose(): void {
    this.env.window.clearTimeout(this.prepareTimer);
    if (this.prepareIdle !== undefined) this.env.window.cancelIdleCallback?.(this.prepareIdle);
    for (const type of GESTURES) this.env.window.removeEventListener(type, this.handleGesture, true);
    this.env.document.removeEventListener("visibilitychange", this.handleVisibility);
    this.stop();
    this.releaseWakeLock();
    void this.context?.close().catch(() => undefined);
    this.context = null;
  }

  getState(): AlarmPlayerState {
    return this.state;
  }

  subscribe(listener: (state: AlarmPlayerState) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private setState(patch: Partial<AlarmPlayerState>): void {
    const next = { ...this.state, ...patch };
    if (
      next.locked === this.state.locked &&
      next.blocked === this.state.blocked &&
      next.sounding === this.state.sounding
    )
      return;
    this.state = next;
    for (const listener of this.listeners) listener(next);
  }

  /** Inside a user gesture: make (or wake) the audio context, which the browser now allows. */
  private readonly handleGesture = () => {
    const context = this.ensureContext();
    if (!context) return;
    if (context.state !== "running") void context.resume().catch(() => undefined);
    if (this.state.locked || this.state.blocked) {
      // iOS plays nothing until a sound started inside a gesture: a silent one does.
      try {
        const silence = context.createBuffer(1, 1, 22_050);
        const node = context.createBufferSource();
        node.buffer = silence;
        node.connect(context.destination);
        node.start();
      } catch {
        // No harm: the context itself is what the gesture unlocked.
      }
      this.setState({ locked: false, blocked: false });
    }
  };

  private readonly handleVisibility = () => {
    // A wake lock ends whenever the page is hidden; take it again if its time has not run out.
    if (this.env.document.visibilityState === "visible" && Date.now() < this.awakeUntil && !this.wakeLock)
      void this.requestWakeLock();
  };

  private ensureContext(): AudioContext | null {
    if (this.context) return this.context;
    const Context = this.env.AudioContext;
    if (!Context) return null;
    try {
      // Safari: play as media, so the alarm is heard as a pager would be (mute is the app's own).
      const session = (this.env.navigator as Navigator & { audioSession?: { type: string } }).audioSession;
      if (session) session.type = "playback";
      this.context = new Context();
    } catch {
      this.context = null;
    }
    return this.context;
  }

  /**
   * Sounds `tone` (ending any sound already playing, except that a soft tone leaves an alarm sounding),
   * vibrates and, for the alarm, keeps the screen awake for `awakeMs`. Resolves to whether the sound started; when the browser blocked it the
   * state says so (vibration and the wake lock are still tried).
   */
  async ring(tone: AlarmTone, awakeMs: number): Promise<boolean> {
    // A soft tone never cuts short an alarm still sounding for another job.
    if (tone === "soft" && this.state.sounding === "alarm") return true;
    this.endSound();
    this.vibrate(tone);
    if (tone === "alarm" && awakeMs > 0) this.keepAwake(awakeMs);
    const context = this.ensureContext();
    if (!context) return false;
    if (context.state !== "running") {
      await Promise.race([
        context.resume().catch(() => undefined),
        new Promise((resolve) => this.env.window.setTimeout(resolve, RESUME_WAIT_MS)),
      ]);
    }
    if (context.state !== "running") {
      this.setState({ blocked: true, locked: true });
      return false;
    }
    this.endSound();
    this.source = tone === "alarm" ? scheduleAlarm(context) : scheduleSoft(context);
    this.setState({ sounding: tone, blocked: false, locked: false });
    this.soundTimer = this.env.window.setTimeout(
      () => {
        this.source = null;
        this.setState({ sounding: null });
      },
      tone === "alarm" ? ALARM_SOUND_MS : SOFT_SOUND_MS,
    );
    return true;
  }

  /** Ends the sound and the vibration now (the member silenced it); the wake lock stays for its time. */
  stop(): void {
    this.endSound();
    try {
      this.env.navigator.vibrate?.(0);
    } catch {
      // nothing to stop
    }
  }

  private endSound(): void {
    this.env.window.clearTimeout(this.soundTimer);
    try {
      this.source?.stop();
    } catch {
      // already stopped
    }
    this.source = null;
    this.setState({ sounding: null });
  }

  private vibrate(tone: AlarmTone): void {
    try {
      this.env.navigator.vibrate?.(VIBRATION[tone]);
    } catch {
      // Some browsers throw instead of returning false when vibration is not allowed.
    }
  }

  private keepAwake(ms: number): void {
    this.awakeUntil = Math.max(this.awakeUntil, Date.now() + ms);
    this.env.window.clearTimeout(this.awakeTimer);
    this.awakeTimer = this.env.window.setTimeout(() => this.releaseWakeLock(), this.awakeUntil - Date.now());
    if (!this.wakeLock) void this.requestWakeLock();
  }

  private async requestWakeLock(): Promise<void> {
    const wakeLock = this.env.navigator.wakeLock;
    if (!wakeLock) return;
    try {
      const sentinel = await wakeLock.request("screen");
      if (Date.now() >= this.awakeUntil) {
        await sentinel.release();
        return;
      }
      this.wakeLock = sentinel;
      sentinel.addEventListener("release", () => {
        if (this.wakeLock === sentinel) this.wakeLock = null;
      });
    } catch {
      // Refused (battery saver, page hidden): the alarm still sounded.
    }
  }

  private releaseWakeLock(): void {
    this.awakeUntil = 0;
    this.env.window.clearTimeout(this.awakeTimer);
    const sentinel = this.wakeLock;
    this.wakeLock = null;
    void sentinel?.release().catch(() => undefined);
  }
}

/** A gain envelope that opens and closes each beep in 5 ms, so the square wave does not click. */
function beep(gain: GainNode, oscillator: OscillatorNode, at: number, hz: number, length: number) {
  oscillator.frequency.setValueAtTime(hz, at);
  gain.gain.setValueAtTime(0, at);
  gain.gain.linearRampToValueAtTime(0.35, at + 0.005);
  gain.gain.setValueAtTime(0.35, at + length - 0.005);
  gain.gain.linearRampToValueAtTime(0, at + length);
}

/** The emergency alarm: bursts of alternating high and low beeps, for ALARM_SOUND_MS. */
function scheduleAlarm(context: AudioContext): { stop: () => void } {
  const oscillator = context.createOscillator();
  const gain = context.createGain();
  oscillator.type = "square";
  gain.gain.value = 0;
  oscillator.connect(gain).connect(context.destination);
  const start = context.currentTime + 0.02;
  const end = start + ALARM_SOUND_MS / 1000;
  let at = start;
  while (at < end - BEEP_S) {
    for (let i = 0; i < BEEPS_PER_BURST && at < end - BEEP_S; i++) {
      beep(gain, oscillator, at, i % 2 === 0 ? ALARM_HIGH_HZ : ALARM_LOW_HZ, BEEP_S);
      at += BEEP_S + BEEP_GAP_S;
    }
    at += BURST_PAUSE_S;
  }
  oscillator.start(start);
  oscillator.stop(end);
  return { stop: () => oscillator.stop() };
}

/** The soft tone: two rising sine notes that fade, for SOFT_SOUND_MS. */
function scheduleSoft(context: AudioContext): { stop: () => void } {
  const oscillator = context.createOscillator();
  const gain = context.createGain();
  oscillator.type = "sine";
  oscillator.connect(gain).connect(context.destination);
  const start = context.currentTime + 0.02;
  oscillator.frequency.setValueAtTime(784, start);
  oscillator.frequency.setValueAtTime(1_047, start + 0.22);
  gain.gain.setValueAtTime(0, start);
  gain.gain.linearRampToValueAtTime(0.3, start + 0.01);
  gain.gain.exponentialRampToValueAtTime(0.05, start + 0.2);
  gain.gain.linearRampToValueAtTime(0.3, start + 0.23);
  gain.gain.exponentialRampToValueAtTime(0.001, start + SOFT_SOUND_MS / 1000);
  oscillator.start(start);
  oscillator.stop(start + SOFT_SOUND_MS / 1000);
  return { stop: () => oscillator.stop() };
}
