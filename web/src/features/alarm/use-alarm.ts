import {
  type AlarmPage,
  type AlarmSettings,
  type AlarmTone,
  alarmForArrivals,
  alarmSettingsSchema,
  DEFAULT_ALARM_SETTINGS,
  isAlarmMuted,
  muteAlarm,
  type RecentRing,
  rememberRings,
} from "@turnout/domain";
import { useCallback, useEffect, useRef, useState } from "react";
import { storage } from "../../api/storage";
import { AlarmPlayer, type AlarmPlayerState } from "../../ui/alarm-player";

const MINUTE_MS = 60_000;
const IDLE: AlarmPlayerState = { locked: false, blocked: false, sounding: null };

/** Pages the feed just admitted, and the agencies the member's view covers (null while unknown). */
export type AlarmArrivals = (pages: readonly AlarmPage[], viewAgencyIds: readonly string[] | null) => void;

export interface AlarmControls {
  settings: AlarmSettings;
  muted: boolean;
  /** The player's state: sound not yet allowed, blocked, or what is sounding. */
  player: AlarmPlayerState;
  /** The feed admitted these pages: ring if the tone policy says so. */
  handleArrivals: AlarmArrivals;
  updateSettings: (next: AlarmSettings) => void;
  mute: (hours: number) => void;
  silence: () => void;
  /** Plays a tone on demand (the settings' test buttons), as a page would but without the wake lock. */
  test: (tone: AlarmTone) => void;
}

/**
 * The alarm while the app is open (issue 26): the member's device settings, the page's one player,
 * and `handleArrivals`, which the feed calls with the pages it admitted. The domain's tone policy
 * decides whether and how they ring; the jobs rung for in the last minute are remembered here.
 */
export function useAlarm(userId: number | string): AlarmControls {
  const [player, setPlayer] = useState<AlarmPlayer | null>(null);
  const [playerState, setPlayerState] = useState<AlarmPlayerState>(IDLE);
  const [settings, setSettings] = useState<AlarmSettings>(
    () => storage.getAlarmSettings(userId, alarmSettingsSchema) ?? DEFAULT_ALARM_SETTINGS,
  );
  const [now, setNow] = useState(() => Date.now());
  const recent = useRef<Map<string, RecentRing>>(new Map());
  const latest = useRef({ settings, player });
  latest.current = { settings, player };

  // One player for the page, made after mount so its gesture listeners catch the first tap.
  useEffect(() => {
    const created = new AlarmPlayer();
    setPlayer(created);
    setPlayerState(created.getState());
    const unsubscribe = created.subscribe(setPlayerState);
    return () => {
      unsubscribe();
      created.dispose();
    };
  }, []);

  // The mute ends by itself: re-render when it does, so the header and settings say so.
  const mutedUntil = settings.mutedUntil;
  useEffect(() => {
    if (mutedUntil === null || mutedUntil <= Date.now()) return;
    const timer = window.setTimeout(
      () => setNow(Date.now()),
      Math.min(mutedUntil - Date.now() + 50, 2 ** 31 - 1),
    );
    return () => window.clearTimeout(timer);
  }, [mutedUntil]);

  const updateSettings = useCallback(
    (next: AlarmSettings) => {
      storage.setAlarmSettings(userId, next);
      setSettings(next);
      setNow(Date.now());
    },
    [userId],
  );

  const handleArrivals = useCallback<AlarmArrivals>((pages, viewAgencyIds) => {
    const at = Date.now();
    const { settings: current, player: sound } = latest.current;
    const { ring, rung } = alarmForArrivals(pages, {
      now: at,
      settings: current,
      viewAgencyIds,
      recent: recent.current,
    });
    if (ring === null) return;
    recent.current = rememberRings(recent.current, rung, at);
    void sound?.ring(ring, current.wakeLockMinutes * MINUTE_MS);
  }, []);

  const mute = useCallback(
    (hours: number) => updateSettings(muteAlarm(latest.current.settings, hours, Date.now())),
    [updateSettings],
  );
  const silence = useCallback(() => latest.current.player?.stop(), []);
  const test = useCallback((tone: AlarmTone) => void latest.current.player?.ring(tone, 0), []);

  return {
    settings,
    muted: isAlarmMuted(settings, now),
    player: playerState,
    handleArrivals,
    updateSettings,
    mute,
    silence,
    test,
  };
}
