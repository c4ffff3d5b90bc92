import { describe, expect, it } from "vitest";
import {
  ALARM_MAX_AGE_MS,
  ALARM_REPEAT_WINDOW_MS,
  type AlarmContext,
  type AlarmPage,
  type AlarmSettings,
  alarmFor,
  alarmForArrivals,
  alarmJobKey,
  alarmSettingsSchema,
  DEFAULT_ALARM_SETTINGS,
  DEFAULT_WAKE_LOCK_MINUTES,
  isAlarmMuted,
  muteAlarm,
  nonEmergencyChoiceFor,
  rememberRings,
} from "./alarm.js";

const NOW = Date.parse("2026-11-27T08:00:00.000Z");
const iso = (ms: number) => new Date(ms).toISOString();

let nextId = 1;
function page(overrides: Partial<AlarmPage> = {}): AlarmPage {
  return {
    id: nextId++,
    type: "emergency",
    job_number: null,
    group_id: null,
    sent_at: iso(NOW - 5_000),
    created_at: iso(NOW - 5_000),
    agency_id: 2,
    units: [],
    ...overrides,
  };
}

function context(
  overrides: Omit<Partial<AlarmContext>, "settings"> & { settings?: Partial<AlarmSettings> } = {},
): AlarmContext {
  return {
    now: NOW,
    viewAgencyIds: [2, 3],
    recent: new Map(),
    ...overrides,
    settings: { ...DEFAULT_ALARM_SETTINGS, ...overrides.settings },
  };
}

describe("alarm tone policy", () => {
  it("rings the alarm for an emergency page of the member's view", () => {
    const p = page({ job_number: "F261127001" });
    expect(alarmFor(p, context())).toEqual({ ring: "alarm", job: "job:F261127001" });
  });

  it("rings non-emergency and standard pages with the softer tone by default", () => {
    expect(alarmFor(page({ type: "non-emergency" }), context()).ring).toBe("soft");
    // An SES S-job carries no prefix: a standard page, still a job a member turns out to.
    expect(alarmFor(page({ type: "standard", job_number: "S261127080" }), context()).ring).toBe("soft");
  });

  it("never rings a machine page or an administrative page", () => {
    expect(alarmFor(page({ type: "administrative", is_machine: true }), context())).toMatchObject({
      ring: null,
      reason: "machine",
    });
    // Machine pages flagged but typed otherwise are still silent.
    expect(alarmFor(page({ type: "emergency", is_machine: true }), context())).toMatchObject({
      reason: "machine",
    });
    expect(alarmFor(page({ type: "administrative" }), context())).toMatchObject({
      ring: null,
      reason: "administrative",
    });
    expect(alarmFor(page({ type: "admin" }), context()).ring).toBeNull();
  });

  it("never rings a page from an agency outside the member's view (an admin console's traffic)", () => {
    expect(alarmFor(page({ agency_id: 9 }), context())).toMatchObject({ ring: null, reason: "outside-view" });
    expect(alarmFor(page({ agency_id: null }), context()).ring).toBeNull();
    // Ids compare as text, so a string id from the wire matches.
    expect(alarmFor(page({ agency_id: "3" }), context()).ring).toBe("alarm");
    // Before the view is known, the feed's admission alone decides.
    expect(alarmFor(page({ agency_id: 9 }), context({ viewAgencyIds: null })).ring).toBe("alarm");
  });

  it("does not ring a page paged longer ago than the limit, nor one without a readable time", () => {
    const old = NOW - ALARM_MAX_AGE_MS - 1;
    expect(alarmFor(page({ sent_at: iso(old), created_at: iso(NOW) }), context())).toMatchObject({
      reason: "stale",
    });
    expect(alarmFor(page({ sent_at: iso(NOW - ALARM_MAX_AGE_MS) }), context()).ring).toBe("alarm");
    expect(alarmFor(page({ sent_at: null, created_at: "not a time" }), context()).ring).toBeNull();
    // A pager clock a little ahead is not stale.
    expect(alarmFor(page({ sent_at: iso(NOW + 30_000) }), context()).ring).toBe("alarm");
  });

  it("rings one job at most once a minute, by job number, group or alert", () => {
    const first = page({ job_number: "f261127002" });
    const recent = rememberRings(new Map(), [{ job: alarmJobKey(first), tone: "alarm" }], NOW - 59_000);
    const again = page({ job_number: "F261127002" });
    expect(alarmFor(again, context({ recent }))).toMatchObject({ ring: null, reason: "repeat" });
    // A minute on, the same job rings again (an update worth hearing).
    const later = context({ recent, now: NOW - 59_000 + ALARM_REPEAT_WINDOW_MS });
    expect(alarmFor({ ...again, sent_at: iso(later.now) }, later).ring).toBe("alarm");
    // Without a job number, the group decides; without a group, the alert itself.
    expect(alarmJobKey({ id: 7, job_number: null, group_id: 12 })).toBe("group:12");
    expect(alarmJobKey({ id: 7, job_number: "  ", group_id: null })).toBe("alert:7");
    // Another job in the same minute rings.
    expect(alarmFor(page({ job_number: "F261127003" }), context({ recent })).ring).toBe("alarm");
  });

  it("raises a job that rang soft to the alarm when its emergency page follows, but never the reverse", () => {
    const job = "F261127004";
    const soft = rememberRings(new Map(), [{ job: `job:${job}`, tone: "soft" }], NOW - 10_000);
    expect(alarmFor(page({ job_number: job }), context({ recent: soft })).ring).toBe("alarm");
    const loud = rememberRings(new Map(), [{ job: `job:${job}`, tone: "alarm" }], NOW - 10_000);
    expect(alarmFor(page({ job_number: job, type: "non-emergency" }), context({ recent: loud })).ring).toBe(
      null,
    );
  });

  it("stays silent while muted, emergencies included, and rings again once the mute ends", () => {
    const muted = muteAlarm(DEFAULT_ALARM_SETTINGS, 2, NOW - 1_000);
    expect(isAlarmMuted(muted, NOW)).toBe(true);
    expect(alarmFor(page(), context({ settings: muted }))).toMatchObject({ ring: null, reason: "muted" });
    const after = NOW - 1_000 + 2 * 3_600_000;
    expect(isAlarmMuted(muted, after)).toBe(false);
    expect(alarmFor(page({ sent_at: iso(after) }), context({ settings: muted, now: after })).ring).toBe(
      "alarm",
    );
    expect(muteAlarm(muted, 0, NOW).mutedUntil).toBeNull();
  });

  it("follows the member's choice per unit for non-emergency pages; emergencies always ring", () => {
    const settings = { units: { "11": "none" as const, "12": "tone" as const }, agencies: {} };
    const quiet = page({ type: "non-emergency", units: [{ id: 11 }] });
    expect(alarmFor(quiet, context({ settings }))).toMatchObject({ ring: null, reason: "member-choice" });
    expect(alarmFor(page({ type: "non-emergency", units: [{ id: 12 }] }), context({ settings })).ring).toBe(
      "alarm",
    );
    // Paged to both units: the loudest choice wins.
    expect(nonEmergencyChoiceFor({ agency_id: 2, units: [{ id: 11 }, { id: 12 }] }, settings)).toBe("tone");
    // An emergency of a unit set to none still rings the alarm.
    expect(alarmFor(page({ units: [{ id: 11 }] }), context({ settings })).ring).toBe("alarm");
  });

  it("uses the agency's choice for a member without units, then the default", () => {
    const settings = { units: {}, agencies: { "2": "none" as const, "3": "tone" as const } };
    expect(nonEmergencyChoiceFor({ agency_id: 2, units: [] }, settings)).toBe("none");
    expect(nonEmergencyChoiceFor({ agency_id: "3", units: null }, settings)).toBe("tone");
    expect(nonEmergencyChoiceFor({ agency_id: 4 }, settings)).toBe("soft");
    // A unit with no choice falls back to the agency's.
    expect(nonEmergencyChoiceFor({ agency_id: 2, units: [{ id: 99 }] }, settings)).toBe("none");
  });

  it("rings once for a burst: the loudest tone, each job remembered with its own", () => {
    const pages = [
      page({ type: "non-emergency", job_number: "F261127010" }),
      page({ type: "emergency", job_number: "F261127011" }),
      page({ type: "emergency", job_number: "F261127011" }),
      page({ type: "administrative" }),
    ];
    const { ring, rung } = alarmForArrivals(pages, context());
    expect(ring).toBe("alarm");
    expect(rung).toEqual([
      { job: "job:F261127010", tone: "soft" },
      { job: "job:F261127011", tone: "alarm" },
    ]);
    expect(alarmForArrivals([page({ type: "administrative" })], context())).toEqual({ ring: null, rung: [] });
    expect(alarmForArrivals([page({ type: "standard" })], context()).ring).toBe("soft");
  });

  it("forgets rings older than the window", () => {
    const recent = rememberRings(new Map(), [{ job: "job:A", tone: "alarm" }], NOW - ALARM_REPEAT_WINDOW_MS);
    const next = rememberRings(recent, [{ job: "job:B", tone: "soft" }], NOW);
    expect([...next.keys()]).toEqual(["job:B"]);
  });

  it("reads stored settings leniently", () => {
    expect(alarmSettingsSchema.parse({})).toEqual(DEFAULT_ALARM_SETTINGS);
    expect(
      alarmSettingsSchema.parse({
        mutedUntil: "soon",
        wakeLockMinutes: 7,
        units: { "1": "soft", "2": "loud" },
        agencies: "none",
      }),
    ).toEqual({
      mutedUntil: null,
      wakeLockMinutes: DEFAULT_WAKE_LOCK_MINUTES,
      units: { "1": "soft" },
      agencies: {},
    });
    expect(alarmSettingsSchema.parse({ mutedUntil: NOW, wakeLockMinutes: 0 })).toMatchObject({
      mutedUntil: NOW,
      wakeLockMinutes: 0,
    });
  });
});
