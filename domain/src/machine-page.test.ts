import { describe, expect, it } from "vitest";
import { groupKeyFor } from "./job-number.js";
import { isMachinePage, pageType } from "./machine-page.js";
import { displayText } from "./message.js";

// Texts as Victoria's paging network and brigades send them (made up, with the real grammar).
const MACHINE = [
  "@@)&)E51TIMEUPDATE 20261127 134500",
  "@@)&)E51TIMEUPDATE",
  "@@ALERT F251201342 KANG1 TIMEUPDATE CKANG ONSCENE 1432HRS",
  "@@ALERT F251201343 TIMEUPDATE CBEND UNDER CONTROL 1510HRS",
  "Hb F251201344 timeupdate CGOLD SAFE 1620HRS",
  "QD TEST PAGE",
  "QD TEST PAGE PLEASE IGNORE",
  "QDCFA D14 - ALL BRIGADES TEST PAGE 1900 HRS",
  "QD CFA D2 PAGER TEST PLEASE IGNORE [CKANG]",
  "TEST PAGE",
  "@@TEST",
  "TEST",
  "THIS IS A TEST MESSAGE FROM VICSES",
  "Hb TESTPAGE 1900",
];

const JOBS = [
  "@@ALERT F251108123 BRAV2 STRUC1 SHED FIRE 14 EXAMPLE RD SOMEVILLE /FIRST ST //SECOND AV M 45 C7 (512345) CBRAV CNEIG [BRAV]",
  "@@ALERT F251108124 KANG1 ALARC1 FIRE ALARM TEST FAULT 3 HIGH ST KANGAROO FLAT M 607 D3 [KANG]",
  "S261127080 SES BENDIGO BUILDING DAMAGE 12 HIGH ST BENDIGO",
  "Hb F251108125 HYDRANT TEST PAGE OF RESULTS DUE",
  "QD CFA D14 GROUP OFFICERS MEETING 1930HRS",
  "TESTING TIMES FOR THE BRIGADE DINNER",
  "CONTEST ENTRIES CLOSE FRIDAY",
];

describe("machine and test pages", () => {
  it("recognises the network's TIMEUPDATE pages, with or without a job number", () => {
    for (const text of MACHINE.slice(0, 5)) expect(isMachinePage(text), text).toBe(true);
  });

  it("recognises brigades' test pages without a job number", () => {
    for (const text of MACHINE.slice(5)) expect(isMachinePage(text), text).toBe(true);
  });

  it("leaves jobs alone, even when their text mentions a test", () => {
    for (const text of JOBS) expect(isMachinePage(text), text).toBe(false);
  });

  it("types a machine page administrative, never emergency, and never groups it", () => {
    expect(pageType("@@)&)E51TIMEUPDATE 20261127 134500")).toBe("administrative");
    expect(pageType("@@ALERT F251201342 KANG1 TIMEUPDATE CKANG ONSCENE 1432HRS")).toBe("administrative");
    expect(groupKeyFor(displayText("@@ALERT F251201342 TIMEUPDATE"), "administrative")).toBeNull();
    expect(pageType(JOBS[0]!)).toBe("emergency");
    expect(pageType("Hb F251108125 HYDRANT CHECK")).toBe("non-emergency");
    expect(pageType(JOBS[2]!)).toBe("standard");
  });
});
