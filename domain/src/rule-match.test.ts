import { describe, expect, it } from "vitest";
import { ruleFiresFor, rulePriorityTypes } from "./rule-match.js";

const CFA = 2;
const SES = 3;
const FRV = 1;
const alert = (over: Partial<{ message: string; type: string; agencyIds: number[] }> = {}) => ({
  message: "ALERT F251108123 BRAV2 STRUC1 SHED FIRE 14 EXAMPLE RD SOMEVILLE",
  type: "emergency",
  agencyIds: [CFA],
  ...over,
});

describe("ruleFiresFor", () => {
  it("fires when every keyword appears, ignoring case, and names the agency", () => {
    expect(ruleFiresFor({ keywords: ["shed", "somevILLE"] }, alert(), [CFA])).toBe(CFA);
  });

  it("does not fire when one keyword is missing", () => {
    expect(ruleFiresFor({ keywords: ["shed", "house"] }, alert(), [CFA])).toBeNull();
  });

  it("matches keywords inside words, as the feed search does", () => {
    expect(ruleFiresFor({ keywords: ["struc"] }, alert(), [CFA])).toBe(CFA);
  });

  it("limits to the rule's types, 'admin' meaning administrative; none means all", () => {
    expect(
      ruleFiresFor({ keywords: ["shed"], priority_levels: ["non-emergency"] }, alert(), [CFA]),
    ).toBeNull();
    expect(ruleFiresFor({ keywords: ["shed"], priority_levels: ["emergency"] }, alert(), [CFA])).toBe(CFA);
    expect(
      ruleFiresFor({ keywords: ["shed"], priority_levels: ["admin"] }, alert({ type: "administrative" }), [
        CFA,
      ]),
    ).toBe(CFA);
    expect(
      ruleFiresFor({ keywords: ["shed"], priority_levels: [] }, alert({ type: "standard" }), [CFA]),
    ).toBe(CFA);
  });

  it("limits to the rule's agencies; none means all of the owner's", () => {
    expect(ruleFiresFor({ keywords: ["shed"], agencies: [SES] }, alert(), [CFA, SES])).toBeNull();
    expect(ruleFiresFor({ keywords: ["shed"], agencies: [CFA] }, alert(), [CFA, SES])).toBe(CFA);
    expect(
      ruleFiresFor({ keywords: ["shed"], agencies: null }, alert({ agencyIds: [SES] }), [CFA, SES]),
    ).toBe(SES);
  });

  it("needs the owner to be assigned to the alert's agency now, even if the rule names it", () => {
    expect(ruleFiresFor({ keywords: ["shed"], agencies: [CFA] }, alert(), [SES])).toBeNull();
    expect(ruleFiresFor({ keywords: ["shed"] }, alert(), [])).toBeNull();
  });

  it("looks at every agency a message was paged to", () => {
    expect(ruleFiresFor({ keywords: ["shed"] }, alert({ agencyIds: [FRV, SES] }), [SES])).toBe(SES);
    expect(ruleFiresFor({ keywords: ["shed"] }, alert({ agencyIds: [SES, FRV] }), [SES, FRV])).toBe(FRV);
  });

  it("never fires without a keyword", () => {
    expect(ruleFiresFor({ keywords: [] }, alert(), [CFA])).toBeNull();
  });
});

describe("rulePriorityTypes", () => {
  it("maps levels to alert types and blank to null", () => {
    expect(rulePriorityTypes(null)).toBeNull();
    expect(rulePriorityTypes([])).toBeNull();
    expect(rulePriorityTypes(["admin", "emergency"])).toEqual(new Set(["administrative", "emergency"]));
  });

  it("keeps a rule to the owner's units where they chose units, unless it asks for the whole agency", () => {
    const rule = { keywords: ["fire"] };
    const alert = {
      message: "STRUC1 HOUSE FIRE",
      type: "emergency",
      agencyIds: [2, 5],
      capcodeIds: [21, 51],
    };
    const units = new Map([[2, new Set([20])]]);
    // Paged to agency 2 outside the owner's unit, and to agency 5 where they chose none.
    expect(ruleFiresFor(rule, alert, [2, 5], units)).toBe(5);
    expect(ruleFiresFor(rule, alert, [2], units)).toBeNull();
    expect(ruleFiresFor(rule, { ...alert, capcodeIds: [20] }, [2], units)).toBe(2);
    expect(ruleFiresFor({ ...rule, units_only: false }, alert, [2], units)).toBe(2);
    expect(ruleFiresFor(rule, alert, [2])).toBe(2);
  });
});
