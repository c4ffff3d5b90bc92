import { messageMatchesAllKeywords, normalizeAlertType, rulePriorityTypes } from "@turnout/domain";
import { describe, expect, it } from "vitest";
import { KeywordAutomaton } from "./automaton.js";
import { type IndexedRule, RuleIndex } from "./rule-index.js";

/** A small deterministic generator, so a failing case can be replayed. */
function random(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function found(automaton: KeywordAutomaton, text: string): number[] {
  const seen = new Uint32Array(automaton.keywordCount);
  const out = new Int32Array(automaton.keywordCount);
  const n = automaton.findAll(text, seen, 1, out);
  return [...out.slice(0, n)].sort((a, b) => a - b);
}

describe("KeywordAutomaton", () => {
  it("finds every keyword that occurs, overlapping and nested ones included, each once", () => {
    const a = KeywordAutomaton.build(["he", "she", "his", "hers", "shed"]);
    expect(found(a, "ushers")).toEqual([0, 1, 3]);
    expect(found(a, "a shed, a shed")).toEqual([0, 1, 4]);
    expect(found(a, "nothing here")).toEqual([0]);
    expect(found(a, "")).toEqual([]);
  });

  it("follows fail links across partial matches", () => {
    const a = KeywordAutomaton.build(["abcd", "bce", "c"]);
    expect(found(a, "abce")).toEqual([1, 2]);
    expect(found(a, "abcabcd")).toEqual([0, 2]);
  });

  it("handles characters beyond ASCII and keywords that share prefixes", () => {
    const a = KeywordAutomaton.build(["café", "caf", "ēast", "🚒"]);
    expect(found(a, "the café on ēast st 🚒")).toEqual([0, 1, 2, 3]);
    expect(found(a, "cafe")).toEqual([1]);
  });

  it("uses one trie node per distinct keyword prefix", () => {
    const a = KeywordAutomaton.build(["fire", "fires", "firearm", "flood"]);
    expect(a.nodeCount).toBe(1 + 4 + 1 + 3 + 4);
  });

  it("agrees with a plain substring search on random keywords and texts", () => {
    const next = random(7);
    const alphabet = "abcde f";
    const word = (max: number) =>
      Array.from(
        { length: 1 + Math.floor(next() * max) },
        () => alphabet[Math.floor(next() * alphabet.length)],
      )
        .join("")
        .replace(/ /g, "a");
    for (let round = 0; round < 200; round++) {
      const keywords = [...new Set(Array.from({ length: 1 + Math.floor(next() * 30) }, () => word(5)))];
      const a = KeywordAutomaton.build(keywords);
      const text = Array.from({ length: 60 }, () => alphabet[Math.floor(next() * alphabet.length)]).join("");
      const expected = keywords.map((k, i) => (text.includes(k) ? i : -1)).filter((i) => i >= 0);
      expect(found(a, text)).toEqual(expected);
    }
  });
});

describe("RuleIndex", () => {
  const rule = (id: number, keywords: string[], over: Partial<IndexedRule> = {}): IndexedRule => ({
    id,
    keywords,
    agencies: [],
    priorityLevels: [],
    ...over,
  });
  const MESSAGE = "ALERT F251108123 BRAV2 STRUC1 SHED FIRE 14 EXAMPLE RD SOMEVILLE /FIRST ST [BRAV]";

  it("reports the rules whose keywords all occur, ignoring case", () => {
    const index = RuleIndex.build([
      rule(1, ["shed", "fire"]),
      rule(2, ["shed", "house"]),
      rule(3, ["SOMEVILLE"]),
      rule(4, ["struc1", "brav", "example", "14"]),
      rule(5, ["grass"]),
    ]);
    expect(index.candidates(MESSAGE, "emergency", [2]).sort()).toEqual([1, 3, 4]);
  });

  it("checks the rule's types, 'admin' meaning administrative", () => {
    const index = RuleIndex.build([
      rule(1, ["shed"], { priorityLevels: ["non-emergency"] }),
      rule(2, ["shed"], { priorityLevels: ["emergency", "admin"] }),
      rule(3, ["shed"], { priorityLevels: ["admin"] }),
    ]);
    expect(index.candidates(MESSAGE, "emergency", [2])).toEqual([2]);
    expect(index.candidates(MESSAGE, "administrative", [2]).sort()).toEqual([2, 3]);
  });

  it("checks the rule's agencies against every agency of the alert; none means any", () => {
    const index = RuleIndex.build([
      rule(1, ["shed"], { agencies: [3] }),
      rule(2, ["shed"], { agencies: [2, 9] }),
      rule(3, ["shed"]),
    ]);
    expect(index.candidates(MESSAGE, "emergency", [2]).sort()).toEqual([2, 3]);
    expect(index.candidates(MESSAGE, "emergency", [4, 3]).sort()).toEqual([1, 3]);
  });

  it("ignores duplicate and blank keywords and rules left without any", () => {
    const index = RuleIndex.build([rule(1, ["shed", "SHED", " "]), rule(2, [" "])]);
    expect(index.ruleCount).toBe(1);
    expect(index.keywordCount).toBe(1);
    expect(index.candidates(MESSAGE, "emergency", [2])).toEqual([1]);
  });

  it("anchors on the keyword rarest in the sample, and still needs all keywords", () => {
    const sample = Array.from({ length: 20 }, (_, i) => `ALERT FIRE ${i} STRUC1`);
    const index = RuleIndex.build([rule(1, ["fire", "someville"]), rule(2, ["fire", "nowhere"])], sample);
    expect(index.candidates(MESSAGE, "emergency", [2])).toEqual([1]);
    expect(index.candidates("FIRE at NOWHERE", "emergency", [2])).toEqual([2]);
    expect(index.candidates("fire only", "emergency", [2])).toEqual([]);
  });

  it("gives the same answer as the domain's rule on random rules and messages", () => {
    const next = random(11);
    const vocabulary = [
      "fire",
      "shed",
      "struc1",
      "grass",
      "alarc1",
      "brav",
      "someville",
      "rd",
      "st",
      "tree",
      "flood",
      "14",
      "fir",
      "ire",
    ];
    const types = ["emergency", "non-emergency", "administrative", "standard"];
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(next() * xs.length)]!;
    const rules: IndexedRule[] = Array.from({ length: 400 }, (_, i) =>
      rule(
        i + 1,
        Array.from({ length: 1 + Math.floor(next() * 4) }, () => pick(vocabulary)),
        {
          agencies: next() < 0.5 ? [] : [1 + Math.floor(next() * 4)],
          priorityLevels: next() < 0.5 ? [] : [pick(["emergency", "non-emergency", "admin", "standard"])],
        },
      ),
    );
    const index = RuleIndex.build(rules);
    for (let m = 0; m < 300; m++) {
      const message = Array.from({ length: 6 }, () => pick(vocabulary).toUpperCase()).join(" ");
      const type = pick(types);
      const agencyIds = [1 + Math.floor(next() * 4)];
      const expected = rules
        .filter((r) => messageMatchesAllKeywords(message, [...r.keywords]))
        .filter((r) => rulePriorityTypes(r.priorityLevels)?.has(normalizeAlertType(type)) ?? true)
        .filter((r) => r.agencies.length === 0 || r.agencies.some((a) => agencyIds.includes(a)))
        .map((r) => r.id);
      expect(index.candidates(message, type, agencyIds).sort((a, b) => a - b)).toEqual(expected);
    }
  });
});
