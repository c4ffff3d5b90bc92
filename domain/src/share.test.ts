import { describe, expect, it } from "vitest";
import { buildShareText } from "./share.js";

const TZ = "Australia/Melbourne";
const alert = {
  type: "emergency",
  agency_name: "CFA",
  area: "Bendigo",
  message: "@@ALERT F251108123 STRUC1 SHED FIRE 14 EXAMPLE RD SOMEVILLE",
  created_at: "2026-11-22T03:05:00Z",
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

  it("accepts a Date for created_at", () => {
    const share = buildShareText(
      { ...alert, created_at: new Date("2026-11-22T03:05:00Z") },
      { timeZone: TZ },
    );
    expect(share.text).toContain("2:05 pm, 22/11/2026");
  });
});
