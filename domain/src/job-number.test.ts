import { describe, expect, it } from "vitest";
import { extractJobNumber, groupKeyFor, isGroupable } from "./job-number.js";

const EMERGENCY =
  "@@ALERT F251108123 BRAV2 STRUC1 SHED FIRE 14 EXAMPLE RD SOMEVILLE /FIRST ST //SECOND AV M 45 C7 (512345) CBRAV CNEIG [BRAV]";
const NON_EMERGENCY_COPY =
  "HbCBRAV - STRUC1 SHED FIRE 14 EXAMPLE RD SOMEVILLE M 45 C7 (512345) F251108123 RESPOND TO STATION";

describe("extractJobNumber", () => {
  it("finds a CFA/FRV job number after @@ALERT", () => {
    expect(extractJobNumber(EMERGENCY)).toBe("F251108123");
  });

  it("finds the job number after the map reference in an Hb copy", () => {
    expect(extractJobNumber(NON_EMERGENCY_COPY)).toBe("F251108123");
  });

  it("finds an SES job number", () => {
    expect(
      extractJobNumber("@@ALERT S251108123 SES VICSES TREE DOWN 3 SAMPLE CT SOMEVILLE SVC 6608 E2 [SOMES]"),
    ).toBe("S251108123");
  });

  it("finds an Ambulance Victoria job number", () => {
    expect(extractJobNumber("@@ALERT E25110812345 AMBULANCE ASSIST CFA LAT/LON:-37.29, 144.42")).toBe(
      "E25110812345",
    );
  });

  it("finds a J job number", () => {
    expect(extractJobNumber("QD J1234 TRAINING")).toBe("J1234");
  });

  it("accepts F with 6 digits and more, but not 5", () => {
    expect(extractJobNumber("X F123456 Y")).toBe("F123456");
    expect(extractJobNumber("X F12345678901234 Y")).toBe("F12345678901234");
    expect(extractJobNumber("X F12345 Y")).toBeNull();
  });

  it("accepts E, J and S tokens of 5 to 13 characters", () => {
    expect(extractJobNumber("E1234")).toBe("E1234");
    expect(extractJobNumber("E123456789012")).toBe("E123456789012");
    expect(extractJobNumber("J123456789012")).toBe("J123456789012");
    expect(extractJobNumber("S1234")).toBe("S1234");
  });

  it("rejects E, J and S tokens of 14 characters", () => {
    expect(extractJobNumber("@@ALERT E1234567890123 TEST")).toBeNull();
    expect(extractJobNumber("@@ALERT J1234567890123 TEST")).toBeNull();
    expect(extractJobNumber("@@ALERT S1234567890123 TEST")).toBeNull();
  });

  it("rejects E, J and S with only 3 digits", () => {
    expect(extractJobNumber("E123 J123 S123")).toBeNull();
  });

  it("ignores digits inside a longer word", () => {
    expect(extractJobNumber("REF XF251108123 AND F251108123X")).toBeNull();
    expect(extractJobNumber("UNIT AS12345 RESPONDING")).toBeNull();
  });

  it("does not mistake map references or unit codes for job numbers", () => {
    expect(
      extractJobNumber("HbCFA2 BURN OFF SVNE 8352 D8 M 45 C7 SVC 6608 E2 (512345) CBRAV [BRAV]"),
    ).toBeNull();
  });

  it("matches job numbers between punctuation", () => {
    expect(extractJobNumber("JOB:[S251108123], CALL BACK")).toBe("S251108123");
  });

  it("returns the first job number in text order", () => {
    expect(extractJobNumber("S251108999 RELATES TO F251108123")).toBe("S251108999");
  });

  it("is case-sensitive and returns null for empty text", () => {
    expect(extractJobNumber("f251108123")).toBeNull();
    expect(extractJobNumber("")).toBeNull();
  });
});

describe("isGroupable", () => {
  it("groups ordinary emergency and non-emergency messages", () => {
    expect(isGroupable(EMERGENCY, "emergency")).toBe(true);
    expect(isGroupable(NON_EMERGENCY_COPY, "non-emergency")).toBe(true);
    expect(isGroupable("S251108123 UPDATE", "standard")).toBe(true);
  });

  it("never groups a TIMEUPDATE message, in any case", () => {
    expect(isGroupable("@@ALERT F251108123 TIMEUPDATE 1432", "emergency")).toBe(false);
    expect(isGroupable("F251108123 timeupdate", "standard")).toBe(false);
  });

  it("never groups administrative messages", () => {
    expect(isGroupable("QD F251108123 STOP CALL", "administrative")).toBe(false);
  });
});

describe("groupKeyFor", () => {
  it("is the job number of a groupable message", () => {
    expect(groupKeyFor(EMERGENCY, "emergency")).toBe("F251108123");
  });

  it("is null for a message without a job number", () => {
    expect(groupKeyFor("TEST PAGE", "standard")).toBeNull();
  });

  it("is null for TIMEUPDATE and administrative messages even with a job number", () => {
    expect(groupKeyFor("@@ALERT F251108123 TIMEUPDATE", "emergency")).toBeNull();
    expect(groupKeyFor("QD F251108123", "administrative")).toBeNull();
  });
});
