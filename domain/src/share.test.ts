import { describe, expect, it } from "vitest";
import { buildShareText } from "./share.js";

const TZ = "Australia/Melbourne";
const alert = {
  type: "emergency",
  agency_name: "CFA",
  area: "Bendigo",
  message: "@@ALERT F251108123 STRUC1 SHED FIRE 14 EXAMPLE RD SOMEVILLE",
  sent_at: "2026-11-22T03:05:00Z",
};

describe("buildShareText", () => {
  it("titles the share with type, agency and area", () => {
    expect(buildShareText(alert, { timeZone: TZ }).title).toBe("Emergency Alert - CFA - Bendigo");
  });

  it("puts the title, time and date, then the message without its prefix in the text", () => {
    expect(buildShareText(alert, { timeZone: TZ }).text).toBe(
      "Emergency Alert - CFA - Bendigo\n2:05 pm, 22/11/2026\nALERT F251108123 STRUC1 SHED FIRE 14 EXAMPLE RD SOMEVILLE",
    );
  });

  it("leaves out the area part when there is no area", () => {
    expect(buildShareText({ ...alert, area: null }, { timeZone: TZ }).title).toBe("Emergency Alert - CFA");
    expect(buildShareText({ ...alert, area: "  " }, { timeZone: TZ }).title).toBe("Emergency Alert - CFA");
  });

  it("leaves out the agency part when the agency is unknown", () => {
    expect(buildShareText({ ...alert, agency_name: null }, { timeZone: TZ }).title).toBe(
      "Emergency Alert - Bendigo",
    );
  });

  it("uses the presentation label of the type", () => {
    expect(buildShareText({ ...alert, type: "admin" }, { timeZone: TZ }).title).toBe(
      "Admin Alert - CFA - Bendigo",
    );
    expect(buildShareText({ ...alert, type: "non-emergency" }, { timeZone: TZ }).title).toBe(
      "Non-Emergency Alert - CFA - Bendigo",
    );
  });

  it("reads the type from the message prefix when the alert has none", () => {
    const share = buildShareText({ ...alert, type: null, message: "HbCFA2 BURN OFF" }, { timeZone: TZ });
    expect(share.title).toBe("Non-Emergency Alert - CFA - Bendigo");
    expect(share.text.endsWith("\nCFA2 BURN OFF")).toBe(true);
  });

  it("gives the time it was paged, not when a replayed page was received", () => {
    const replayed = { ...alert, created_at: "2026-11-22T03:05:00Z", received_at: "2026-11-23T09:40:00Z" };
    expect(buildShareText(replayed, { timeZone: TZ }).text).toContain("\n2:05 pm, 22/11/2026\n");
  });

  it("accepts a Date for sent_at", () => {
    const share = buildShareText({ ...alert, sent_at: new Date("2026-11-22T03:05:00Z") }, { timeZone: TZ });
    expect(share.text).toContain("2:05 pm, 22/11/2026");
  });
});
