// The alarm while the app is open (issue 26): when a page that reaches the feed rings, which tone it
// rings with, and when it stays silent. Pure: the web app feeds it the pages its feed admitted, the
// member's device settings and the jobs it rang for lately, and plays what it answers.
import { z } from "zod/mini";
import { normalizeAlertType } from "./message.js";

/** The two sounds: the emergency alarm and the softer tone for other pages. */
export const ALARM_TONES = ["alarm", "soft"] as const;
export type AlarmTone = (typeof ALARM_TONES)[number];

/**
 * What a member chose for the pages of one unit (or agency) that are not emergencies: the full alarm
 * ("tone"), the softer tone, or nothing.
 */
export const NON_EMERGENCY_CHOICES = ["tone", "soft", "none"] as const;
export type NonEmergencyChoice = (typeof NON_EMERGENCY_CHOICES)[number];

/** A unit or agency the member made no choice for rings non-emergency pages with the softer tone. */
export const DEFAULT_NON_EMERGENCY_CHOICE: NonEmergencyChoice = "soft";

/** One job rings at most once within this window (several transmitters, several pages of one job). */
export const ALARM_REPEAT_WINDOW_MS = 60_000;

/**
 * A page paged longer ago than this does not ring: a receiver's spool replayed hours later, or a
 * reconnect that catches up on an old page, is news to read, not a call to turn out.
 */
export const ALARM_MAX_AGE_MS = 10 * 60_000;

/** How long the screen may be kept awake after an emergency page, in minutes (0: not at all). */
export const WAKE_LOCK_MINUTE_CHOICES = [0, 1, 5, 10, 15, 30] as const;
export const DEFAULT_WAKE_LOCK_MINUTES = 5;

/** The mute lengths offered, in hours. */
export const MUTE_HOUR_CHOICES = [1, 2, 4, 8, 12] as const;

const HOUR_MS = 3_600_000;

const choiceSchema = z.enum(NON_EMERGENCY_CHOICES);

/** Choices keyed by id, read leniently: an entry that is not a known choice is dropped. */
const choicesById = z.pipe(
  z.catch(z.record(z.string(), z.unknown()), {}),
  z.transform((record) => {
    const out: Record<string, NonEmergencyChoice> = {};
    for (const [id, value] of Object.entries(record)) {
      const parsed = choiceSchema.safeParse(value);
      if (parsed.success) out[id] = parsed.data;
    }
    return out;
  }),
);

/**
 * The alarm's settings on one device, read leniently (a value of the wrong kind takes its default):
 * a mute until a time, how long an emergency keeps the screen on, and the non-emergency choice per
 * unit id (members with units) and per agency id (members without).
 */
export const alarmSettingsSchema = z.object({
  mutedUntil: z._default(z.catch(z.nullable(z.number()), null), null),
  wakeLockMinutes: z._default(
    z.catch(
      z.number().check(z.refine((n) => (WAKE_LOCK_MINUTE_CHOICES as readonly number[]).includes(n))),
      DEFAULT_WAKE_LOCK_MINUTES,
    ),
    DEFAULT_WAKE_LOCK_MINUTES,
  ),
  units: z._default(choicesById, {}),
  agencies: z._default(choicesById, {}),
});
export type AlarmSettings = z.infer<typeof alarmSettingsSchema>;

/** The settings of a device where the member chose nothing yet. */
export const DEFAULT_ALARM_SETTINGS: AlarmSettings = {
  mutedUntil: null,
  wakeLockMinutes: DEFAULT_WAKE_LOCK_MINUTES,
  units: {},
  agencies: {},
};

/** Whether the alarm is muted at `now`. */
export function isAlarmMuted(settings: Pick<AlarmSettings, "mutedUntil">, now: number): boolean {
  return settings.mutedUntil !== null && settings.mutedUntil > now;
}

/** The settings muted for `hours` from `now` (0 or less: unmuted). */
export function muteAlarm(settings: AlarmSettings, hours: number, now: number): AlarmSettings {
  return { ...settings, mutedUntil: hours > 0 ? now + hours * HOUR_MS : null };
}

/** A page as the alarm reads it (the live alert's fields; `units` and `is_machine` may be absent). */
export type AlarmPage = {
  id: number | string;
  type?: string | null;
  is_machine?: boolean | null;
  job_number?: string | null;
  group_id?: number | null;
  /** When it was paged (the time the feed shows); created_at stands in when absent. */
  sent_at?: string | null;
  created_at: string;
  agency_id?: number | string | null;
  /** The units it was paged to among the member's agencies. */
  units?: ReadonlyArray<{ id: number | string }> | null;
};

/** A job the alarm rang for: when, and with which tone. */
export type RecentRing = { at: number; tone: AlarmTone };

/** What the alarm needs besides the page: the time, the settings, the member's view and its memory. */
export type AlarmContext = {
  now: number;
  settings: AlarmSettings;
  /**
   * The agencies whose pages the member's feed shows (the live channel's joined agencies); null while
   * unknown. A page from any other agency (an admin's console receives every agency's) never rings.
   */
  viewAgencyIds: ReadonlyArray<number | string> | null;
  /** The jobs rung for lately, by alarmJobKey. */
  recent: ReadonlyMap<string, RecentRing>;
};

/** Why a page stays silent. */
export type SilentReason =
  | "machine"
  | "administrative"
  | "outside-view"
  | "stale"
  | "repeat"
  | "muted"
  | "member-choice";

export type AlarmDecision =
  | { ring: AlarmTone; job: string }
  | { ring: null; job: string; reason: SilentReason };

/** The job a page belongs to for the once-a-minute rule: its job number, else its group, else itself. */
export function alarmJobKey(page: Pick<AlarmPage, "id" | "job_number" | "group_id">): string {
  const jobNumber = page.job_number?.trim().toUpperCase();
  if (jobNumber) return `job:${jobNumber}`;
  if (page.group_id !== null && page.group_id !== undefined) return `group:${page.group_id}`;
  return `alert:${page.id}`;
}

const LOUDNESS: Record<NonEmergencyChoice, number> = { none: 0, soft: 1, tone: 2 };

/**
 * The member's choice for a non-emergency page: the loudest choice among the page's units that have
 * one, else the choice for its agency, else the default (soft).
 */
export function nonEmergencyChoiceFor(
  page: Pick<AlarmPage, "agency_id" | "units">,
  settings: Pick<AlarmSettings, "units" | "agencies">,
): NonEmergencyChoice {
  let chosen: NonEmergencyChoice | null = null;
  for (const unit of page.units ?? []) {
    const choice = settings.units[String(unit.id)];
    if (choice && (chosen === null || LOUDNESS[choice] > LOUDNESS[chosen])) chosen = choice;
  }
  if (chosen) return chosen;
  const agency = page.agency_id === null || page.agency_id === undefined ? null : String(page.agency_id);
  return (agency !== null ? settings.agencies[agency] : undefined) ?? DEFAULT_NON_EMERGENCY_CHOICE;
}

function pagedAt(page: AlarmPage): number {
  const at = Date.parse(page.sent_at ?? page.created_at);
  return Number.isNaN(at) ? Number.NaN : at;
}

/**
 * Whether one page the member's feed just admitted rings, and with which tone:
 * - never a machine or administrative page;
 * - never a page from an agency outside the member's view;
 * - never a page paged more than ALARM_MAX_AGE_MS ago (or with no readable time);
 * - never a job already rung for within ALARM_REPEAT_WINDOW_MS, except that a job first rung with
 *   the soft tone rings the alarm when an emergency page of it follows;
 * - nothing while muted;
 * - an emergency rings the alarm; any other page what the member chose for its unit or agency.
 * The caller passes only pages its feed admitted: a page the view's filters hide never gets here.
 */
export function alarmFor(page: AlarmPage, context: AlarmContext): AlarmDecision {
  const job = alarmJobKey(page);
  const silent = (reason: SilentReason): AlarmDecision => ({ ring: null, job, reason });
  if (page.is_machine) return silent("machine");
  const type = normalizeAlertType(page.type);
  if (type === "administrative") return silent("administrative");
  if (context.viewAgencyIds !== null) {
    const agency = page.agency_id === null || page.agency_id === undefined ? "" : String(page.agency_id);
    if (!context.viewAgencyIds.some((id) => String(id) === agency)) return silent("outside-view");
  }
  const at = pagedAt(page);
  if (Number.isNaN(at) || context.now - at > ALARM_MAX_AGE_MS) return silent("stale");

  let tone: AlarmTone | null;
  if (type === "emergency") tone = "alarm";
  else {
    const choice = nonEmergencyChoiceFor(page, context.settings);
    tone = choice === "tone" ? "alarm" : choice === "soft" ? "soft" : null;
  }

  const previous = context.recent.get(job);
  if (previous && context.now - previous.at < ALARM_REPEAT_WINDOW_MS) {
    const escalates = previous.tone === "soft" && tone === "alarm";
    if (!escalates) return silent("repeat");
  }
  if (isAlarmMuted(context.settings, context.now)) return silent("muted");
  if (tone === null) return silent("member-choice");
  return { ring: tone, job };
}

/** The jobs one arrival rang for, each with its own tone (remembered so an escalation still rings). */
export type Rung = ReadonlyArray<{ job: string; tone: AlarmTone }>;

/**
 * Several pages admitted at once (a burst, a catch-up after a reconnect): one sound, the loudest any
 * of them rings, and the jobs that rang with their tones. Pages of one job count once, except that an
 * emergency page of a job that rang soft raises it to the alarm.
 */
export function alarmForArrivals(
  pages: readonly AlarmPage[],
  context: AlarmContext,
): { ring: AlarmTone | null; rung: Rung } {
  const recent = new Map(context.recent);
  const rung = new Map<string, AlarmTone>();
  for (const page of pages) {
    const decision = alarmFor(page, { ...context, recent });
    if (decision.ring === null) continue;
    recent.set(decision.job, { at: context.now, tone: decision.ring });
    rung.set(decision.job, decision.ring);
  }
  const tones = [...rung.values()];
  const ring = tones.includes("alarm") ? "alarm" : tones.length > 0 ? "soft" : null;
  return { ring, rung: [...rung].map(([job, tone]) => ({ job, tone })) };
}

/**
 * The memory after ringing for `rung` at `now`, without the jobs whose window has passed (so it never
 * holds more than a minute's jobs).
 */
export function rememberRings(
  recent: ReadonlyMap<string, RecentRing>,
  rung: Rung,
  now: number,
): Map<string, RecentRing> {
  const next = new Map<string, RecentRing>();
  for (const [job, ring] of recent) if (now - ring.at < ALARM_REPEAT_WINDOW_MS) next.set(job, ring);
  for (const { job, tone } of rung) next.set(job, { at: now, tone });
  return next;
}
