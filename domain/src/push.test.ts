import { describe, expect, it } from "vitest";
import {
  agencyModePushes,
  deliversPush,
  deliversSms,
  effectivePushMode,
  isAllowedPushHost,
  PUSH_BODY_MAX,
  pushNotificationFor,
  pushSubscriptionSchema,
} from "./push.js";

const sentAt = new Date("2026-11-23T10:00:00.000Z");

describe("push notifications", () => {
  it("titles a notification with type, agency and area, tags it per job and links the job", () => {
    const n = pushNotificationFor(
      {
        id: 42,
        type: "emergency",
        message: "F261100001  STRUC1 HOUSE FIRE\n1 HIGH ST",
        area: "Bendigo",
        jobNumber: "F261100001",
        sentAt,
      },
      "CFA",
    );
    expect(n).toEqual({
      title: "Emergency \u00b7 CFA \u00b7 Bendigo",
      body: "F261100001 STRUC1 HOUSE FIRE 1 HIGH ST",
      tag: "job-F261100001",
      url: "/j/42",
      alert_id: 42,
      type: "emergency",
      sent_at: "2026-11-23T10:00:00.000Z",
    });
  });

  it("tags an alert without a job number by its id, and leaves out a missing area", () => {
    const n = pushNotificationFor({ id: 7, type: "non-emergency", message: "CHECK", sentAt }, "SES");
    expect(n.title).toBe("Non-Emergency \u00b7 SES");
    expect(n.tag).toBe("alert-7");
  });

  it("shortens a long message so the payload stays small", () => {
    const n = pushNotificationFor({ id: 1, type: "emergency", message: "X".repeat(5000), sentAt }, "CFA");
    expect(n.body).toHaveLength(PUSH_BODY_MAX);
    expect(n.body.endsWith("\u2026")).toBe(true);
  });

  it("pushes emergencies through an agency's mode, never administrative messages", () => {
    expect(agencyModePushes("emergency", "emergency")).toBe(true);
    expect(agencyModePushes("emergency", "administrative")).toBe(false);
    expect(agencyModePushes("emergency", "non-emergency")).toBe(false);
    expect(agencyModePushes("none", "emergency")).toBe(false);
  });

  it("pushes a unit member only their units' emergencies by default", () => {
    expect(effectivePushMode(null, true)).toBe("units");
    expect(effectivePushMode(undefined, false)).toBe("emergency");
    expect(effectivePushMode("units", false)).toBe("emergency");
    expect(effectivePushMode("emergency", true)).toBe("emergency");
    expect(effectivePushMode("none", true)).toBe("none");
    expect(effectivePushMode("bogus", true)).toBe("units");
    expect(agencyModePushes("units", "emergency", true)).toBe(true);
    expect(agencyModePushes("units", "emergency", false)).toBe(false);
    expect(agencyModePushes("units", "non-emergency", true)).toBe(false);
  });

  it("reads a rule's delivery", () => {
    expect([deliversSms("sms"), deliversPush("sms")]).toEqual([true, false]);
    expect([deliversSms("sms_and_push"), deliversPush("sms_and_push")]).toEqual([true, true]);
    expect([deliversSms("push"), deliversPush("push")]).toEqual([false, true]);
  });

  it("accepts the browsers' push services and listed extra hosts only", () => {
    for (const host of [
      "fcm.googleapis.com",
      "updates.push.services.mozilla.com",
      "web.push.apple.com",
      "db5p.notify.windows.com",
    ])
      expect(isAllowedPushHost(host), host).toBe(true);
    for (const host of [
      "localhost",
      "127.0.0.1",
      "evil.com",
      "fcm.googleapis.com.evil.com",
      "push.apple.com.x",
    ])
      expect(isAllowedPushHost(host), host).toBe(false);
    expect(isAllowedPushHost("127.0.0.1", ["127.0.0.1"])).toBe(true);
  });

  it("validates a subscription as the browser gives it", () => {
    const good = {
      endpoint: "https://fcm.googleapis.com/fcm/send/abc",
      keys: { p256dh: "B".repeat(87), auth: "A".repeat(22) },
      expiration_time: null,
    };
    expect(pushSubscriptionSchema.safeParse(good).success).toBe(true);
    for (const bad of [
      { ...good, endpoint: "not a url" },
      { ...good, keys: { p256dh: "short", auth: "A".repeat(22) } },
      { ...good, keys: { p256dh: "B".repeat(87), auth: "!".repeat(22) } },
      { endpoint: good.endpoint },
      { ...good, endpoint: `https://fcm.googleapis.com/${"x".repeat(3000)}` },
    ])
      expect(pushSubscriptionSchema.safeParse(bad).success).toBe(false);
  });
});
