import { describe, expect, it } from "vitest";
import {
  alertRuleInputSchema,
  alertRulePreviewSchema,
  canPreviewRule,
  KEYWORD_REQUIRED_MESSAGE,
  KEYWORD_SPACES_COMMAS_MESSAGE,
  messageMatchesAllKeywords,
  normalizeRuleStatus,
  sanitizeKeywordInput,
  validateKeywords,
} from "./keywords.js";

describe("sanitizeKeywordInput", () => {
  it("strips spaces and commas and lower-cases", () => {
    expect(sanitizeKeywordInput(" Shed, Fire ")).toBe("shedfire");
    expect(sanitizeKeywordInput("")).toBe("");
  });
});

describe("validateKeywords", () => {
  it("returns keywords trimmed, lower-cased, blanks dropped", () => {
    expect(validateKeywords([" Shed ", "", "FIRE", "  "])).toEqual({ ok: true, keywords: ["shed", "fire"] });
  });

  it("requires at least one non-blank keyword", () => {
    expect(validateKeywords([])).toEqual({ ok: false, message: KEYWORD_REQUIRED_MESSAGE });
    expect(validateKeywords(["", "  "])).toEqual({ ok: false, message: KEYWORD_REQUIRED_MESSAGE });
  });

  it("rejects a keyword with a space", () => {
    expect(validateKeywords(["shed fire"])).toEqual({ ok: false, message: KEYWORD_SPACES_COMMAS_MESSAGE });
  });

  it("rejects a keyword with a comma", () => {
    expect(validateKeywords(["ok", "shed,fire"])).toEqual({
      ok: false,
      message: KEYWORD_SPACES_COMMAS_MESSAGE,
    });
  });

  it("uses the spec's exact message", () => {
    expect(KEYWORD_SPACES_COMMAS_MESSAGE).toBe(
      "Spaces and commas are not allowed. Use separate keyword fields instead.",
    );
  });
});

describe("canPreviewRule", () => {
  it("is enabled for valid keywords", () => {
    expect(canPreviewRule(["shed"])).toBe(true);
  });

  it("is disabled for empty keywords or ones with spaces or commas", () => {
    expect(canPreviewRule([""])).toBe(false);
    expect(canPreviewRule(["shed fire"])).toBe(false);
    expect(canPreviewRule(["shed,"])).toBe(false);
  });
});

describe("messageMatchesAllKeywords", () => {
  const message = "@@ALERT F251108123 STRUC1 SHED FIRE 14 EXAMPLE RD SOMEVILLE";

  it("matches when all keywords appear, ignoring case", () => {
    expect(messageMatchesAllKeywords(message, ["shed", "SOMEVILLE"])).toBe(true);
  });

  it("does not match when only some keywords appear", () => {
    expect(messageMatchesAllKeywords(message, ["shed", "grass"])).toBe(false);
  });

  it("never matches with no keywords", () => {
    expect(messageMatchesAllKeywords(message, [])).toBe(false);
    expect(messageMatchesAllKeywords(message, [" "])).toBe(false);
  });
});

describe("alertRuleInputSchema", () => {
  const body = { name: "Sheds", keywords: ["Shed", "fire"] };

  it("accepts a minimal rule and cleans its keywords", () => {
    const result = alertRuleInputSchema.parse(body);
    expect(result.name).toBe("Sheds");
    expect(result.keywords).toEqual(["shed", "fire"]);
    expect(result.agencies).toBeUndefined();
  });

  it("accepts description, agencies and message types", () => {
    const result = alertRuleInputSchema.parse({
      ...body,
      description: " Farm sheds ",
      agencies: [1, 2],
      priority_levels: ["emergency", "admin"],
    });
    expect(result).toMatchObject({
      description: "Farm sheds",
      agencies: [1, 2],
      priority_levels: ["emergency", "admin"],
    });
  });

  it("requires a non-blank name", () => {
    expect(alertRuleInputSchema.safeParse({ ...body, name: "  " }).success).toBe(false);
    expect(alertRuleInputSchema.safeParse({ keywords: ["shed"] }).success).toBe(false);
  });

  it("rejects keywords with spaces or commas with the spec's message", () => {
    const result = alertRuleInputSchema.safeParse({ ...body, keywords: ["shed fire"] });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toBe(KEYWORD_SPACES_COMMAS_MESSAGE);
  });

  it("rejects blank keywords and non-positive agency ids and unknown types", () => {
    expect(alertRuleInputSchema.safeParse({ ...body, keywords: [""] }).success).toBe(false);
    expect(alertRuleInputSchema.safeParse({ ...body, agencies: [0] }).success).toBe(false);
    expect(alertRuleInputSchema.safeParse({ ...body, agencies: [1.5] }).success).toBe(false);
    expect(alertRuleInputSchema.safeParse({ ...body, priority_levels: ["urgent"] }).success).toBe(false);
  });
});

describe("alertRulePreviewSchema", () => {
  it("needs only keywords", () => {
    expect(alertRulePreviewSchema.parse({ keywords: ["SHED"] }).keywords).toEqual(["shed"]);
  });
});

describe("normalizeRuleStatus", () => {
  it("keeps known statuses", () => {
    expect(normalizeRuleStatus("approved")).toBe("approved");
    expect(normalizeRuleStatus("Rejected")).toBe("rejected");
    expect(normalizeRuleStatus("suspended")).toBe("suspended");
  });

  it("treats unknown or missing status as pending", () => {
    expect(normalizeRuleStatus("on hold")).toBe("pending");
    expect(normalizeRuleStatus(null)).toBe("pending");
  });
});
