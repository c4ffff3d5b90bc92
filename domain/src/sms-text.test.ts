import { describe, expect, it } from "vitest";
import {
  fitSms,
  fitsTwoSegments,
  jobLink,
  ruleAlertSmsText,
  ruleReviewSmsText,
  SMS_GSM7_TWO_SEGMENTS,
  SMS_UCS2_TWO_SEGMENTS,
  smsLength,
  smsSegmentCount,
  welcomeSmsText,
} from "./sms-text.js";

const TURNOUT =
  "ALERT F251108123 BRAV2 STRUC1 SHED FIRE 14 EXAMPLE RD SOMEVILLE /FIRST ST //SECOND AV M 45 C7 (512345) CBRAV CNEIG [BRAV]";

describe("smsLength", () => {
  it("counts GSM-7 septets, extension characters twice", () => {
    expect(smsLength("Hello @ £ é")).toEqual({ encoding: "GSM-7", units: 11 });
    expect(smsLength("[x] {y} €")).toEqual({ encoding: "GSM-7", units: 14 });
    expect(smsLength("")).toEqual({ encoding: "GSM-7", units: 0 });
  });

  it("switches to UCS-2 for any character outside the GSM alphabet, counting UTF-16 units", () => {
    expect(smsLength("Fire at café ‘north’")).toEqual({ encoding: "UCS-2", units: 20 });
    expect(smsLength("Flood 🌊")).toEqual({ encoding: "UCS-2", units: 8 });
  });
});

describe("smsSegmentCount", () => {
  it("uses 160/153 for GSM-7 and 70/67 for UCS-2", () => {
    expect(smsSegmentCount("a".repeat(160))).toBe(1);
    expect(smsSegmentCount("a".repeat(161))).toBe(2);
    expect(smsSegmentCount("a".repeat(306))).toBe(2);
    expect(smsSegmentCount("a".repeat(307))).toBe(3);
    expect(smsSegmentCount("é".repeat(70))).toBe(1);
    expect(smsSegmentCount("ē".repeat(70))).toBe(1);
    expect(smsSegmentCount("ē".repeat(71))).toBe(2);
    expect(smsSegmentCount("ē".repeat(134))).toBe(2);
    expect(smsSegmentCount("ē".repeat(135))).toBe(3);
  });
});

describe("fitSms", () => {
  it("keeps a text that fits as it is", () => {
    expect(fitSms("A: ", "short", " B")).toBe("A: short B");
  });

  it("shortens only the body, ending it in '...', to exactly the two-segment limit", () => {
    const out = fitSms("HEAD ", "x".repeat(400), " TAIL");
    expect(out.startsWith("HEAD x")).toBe(true);
    expect(out.endsWith("x... TAIL")).toBe(true);
    expect(smsLength(out)).toEqual({ encoding: "GSM-7", units: SMS_GSM7_TWO_SEGMENTS });
  });

  it("counts extension characters as two when shortening", () => {
    const out = fitSms("", "[".repeat(200));
    expect(smsLength(out).units).toBeLessThanOrEqual(SMS_GSM7_TWO_SEGMENTS);
    expect(smsLength(out).units).toBeGreaterThanOrEqual(SMS_GSM7_TWO_SEGMENTS - 1);
  });

  it("applies the UCS-2 limit when the text needs it, never splitting a surrogate pair", () => {
    const out = fitSms("H ", "🚒".repeat(100));
    expect(smsLength(out).encoding).toBe("UCS-2");
    expect(out.length).toBeLessThanOrEqual(SMS_UCS2_TWO_SEGMENTS);
    expect(out).toMatch(/^H (🚒)+\.\.\.$/u);
  });

  it("drops a late non-GSM character rather than fall back to UCS-2 when that keeps more text", () => {
    const out = fitSms("", `${"a".repeat(300)}ē${"b".repeat(50)}`);
    expect(smsLength(out).encoding).toBe("GSM-7");
    expect(out).toBe(`${"a".repeat(300)}...`);
  });
});

describe("jobLink", () => {
  it("joins the public URL and the job id without a doubled slash", () => {
    expect(jobLink("https://turnout.example", 42)).toBe("https://turnout.example/j/42");
    expect(jobLink("https://turnout.example/", 42)).toBe("https://turnout.example/j/42");
    expect(jobLink(null, 42)).toBeNull();
  });
});

describe("ruleAlertSmsText", () => {
  it("reads type label, agency, the message and the job link", () => {
    expect(
      ruleAlertSmsText({
        type: "emergency",
        agency: "CFA",
        message: TURNOUT,
        publicUrl: "https://turnout.example",
        alertId: 1234,
      }),
    ).toBe(`EMERGENCY CFA: ${TURNOUT} https://turnout.example/j/1234`);
  });

  it("uses the spec's labels for every type and leaves the link out without a public URL", () => {
    const text = (type: string) =>
      ruleAlertSmsText({ type, agency: "SES", message: "x", publicUrl: null, alertId: 1 });
    expect(text("non-emergency")).toBe("NON-EMERGENCY SES: x");
    expect(text("administrative")).toBe("ADMIN SES: x");
    expect(text("admin")).toBe("ADMIN SES: x");
    expect(text("standard")).toBe("STANDARD SES: x");
    expect(text("unknown")).toBe("STANDARD SES: x");
  });

  it("collapses whitespace and keeps a long message within two GSM-7 segments, link intact", () => {
    const long = `${TURNOUT}\n\n   ${TURNOUT} ${TURNOUT}`;
    const text = ruleAlertSmsText({
      type: "emergency",
      agency: "CFA",
      message: long,
      publicUrl: "https://turnout.example",
      alertId: 987654,
    });
    expect(text).not.toMatch(/\s\s|\n/);
    expect(text.endsWith("... https://turnout.example/j/987654")).toBe(true);
    expect(smsLength(text)).toEqual({ encoding: "GSM-7", units: SMS_GSM7_TWO_SEGMENTS });
    expect(fitsTwoSegments(text)).toBe(true);
  });

  it("keeps a message with non-GSM characters within two UCS-2 segments", () => {
    const text = ruleAlertSmsText({
      type: "non-emergency",
      agency: "SES",
      message: `Tree down on “Main Rd” ${"near the school ".repeat(10)}`,
      publicUrl: "https://turnout.example",
      alertId: 5,
    });
    expect(smsLength(text).encoding).toBe("UCS-2");
    expect(text.length).toBeLessThanOrEqual(SMS_UCS2_TWO_SEGMENTS);
    expect(text.endsWith("... https://turnout.example/j/5")).toBe(true);
    expect(text.startsWith("NON-EMERGENCY SES: Tree down on “Main Rd”")).toBe(true);
  });
});

describe("ruleReviewSmsText", () => {
  it("tells the owner a rule was approved, naming it", () => {
    expect(ruleReviewSmsText({ ruleName: "Shed fires", decision: "approved" })).toBe(
      'Turnout: your alert rule "Shed fires" was approved. You will get an SMS when a message contains all of its keywords.',
    );
  });

  it("gives the reason of a rejection, shortened to fit", () => {
    const short = ruleReviewSmsText({
      ruleName: "Too broad",
      decision: "rejected",
      reason: "Matches every job.",
    });
    expect(short).toBe('Turnout: your alert rule "Too broad" was not approved. Reason: Matches every job.');
    const long = ruleReviewSmsText({
      ruleName: "x".repeat(100),
      decision: "rejected",
      reason: "y ".repeat(300),
    });
    expect(fitsTwoSegments(long)).toBe(true);
    expect(long).toContain(`"${"x".repeat(37)}..."`);
  });

  it("says a suspended rule sends nothing until approved again", () => {
    expect(ruleReviewSmsText({ ruleName: "Floods", decision: "suspended" })).toContain(
      "was suspended by an administrator. It sends no SMS until it is approved again.",
    );
  });

  it("says when a late page was paged, and nothing for a page received as it was paged", () => {
    const base = { type: "emergency", agency: "CFA", message: "STRUC1", publicUrl: null, alertId: 7 };
    const pagedAt = new Date("2026-11-22T03:05:00Z");
    const tz = { timeZone: "Australia/Melbourne" };
    expect(ruleAlertSmsText({ ...base, ...tz, pagedAt, receivedAt: new Date("2026-11-22T09:00:00Z") })).toBe(
      "EMERGENCY CFA (paged 2:05 pm, 22/11/2026): STRUC1",
    );
    expect(ruleAlertSmsText({ ...base, ...tz, pagedAt, receivedAt: new Date("2026-11-22T03:06:00Z") })).toBe(
      "EMERGENCY CFA: STRUC1",
    );
  });
});

describe("welcomeSmsText", () => {
  it("says who added the account and how to sign in, with the public address", () => {
    expect(welcomeSmsText({ firstName: "Sam", publicUrl: "https://turnout.example.org/" })).toBe(
      "Turnout: Hi Sam, an administrator has added you. Sign in at https://turnout.example.org with this phone number; we will text you a 6-digit code.",
    );
  });

  it("without a public address, says to ask for it; a long name is cut and the text stays within two segments", () => {
    const text = welcomeSmsText({ firstName: "A".repeat(100), publicUrl: null });
    expect(text).toContain("ask your administrator for its address");
    expect(text).toContain(`Hi ${"A".repeat(30)}, `);
    expect(fitsTwoSegments(text)).toBe(true);
  });
});
