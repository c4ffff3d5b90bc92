import { type AlertType, normalizeAlertType, rulePriorityTypes } from "@turnout/domain";
import { KeywordAutomaton } from "./automaton.js";

/** What the index needs of an approved, active rule. */
export type IndexedRule = {
  id: number;
  keywords: readonly string[];
  /** Agency ids; empty means every agency of the owner (checked later, against the database). */
  agencies: readonly number[];
  priorityLevels: readonly string[];
};

const TYPE_BITS: Record<AlertType, number> = {
  emergency: 1,
  "non-emergency": 2,
  administrative: 4,
  standard: 8,
};
const ALL_TYPES = 15;

/**
 * Every approved, active rule in one structure that answers "which rules does this message satisfy?"
 * in one pass over the text, without looping over rules:
 *
 * - an Aho-Corasick automaton over the distinct keywords of all rules finds which keywords occur;
 * - each rule is filed under one keyword of its own, its anchor: the keyword least likely to occur
 *   (fewest recent messages contain it, then fewest rules use it, then the longest). Only rules whose
 *   anchor occurred are looked at, and for those the other keywords are checked against the set found,
 *   so the work per message is proportional to the keywords found and the rules nearly matching, not
 *   to the number of rules. (Filing a rule under every keyword and counting hits per rule gives the
 *   same answer but costs one increment per rule sharing a common keyword such as 'fire'.)
 * - the rule's types (a bit mask) and agencies are checked before a rule is reported.
 *
 * The owner's current agencies are not known here: callers confirm each candidate against the
 * database (status, owner, agencies) with the domain's ruleFiresFor.
 */
export class RuleIndex {
  readonly ruleCount: number;
  readonly keywordCount: number;
  readonly automaton: KeywordAutomaton;

  private readonly ruleIds: Int32Array;
  private readonly ruleTypes: Uint8Array;
  private readonly ruleKeywordStart: Uint32Array;
  private readonly ruleKeywords: Uint32Array;
  private readonly ruleAgencyStart: Uint32Array;
  private readonly ruleAgencies: Int32Array;
  private readonly anchorStart: Uint32Array;
  private readonly anchorRules: Uint32Array;

  private readonly seen: Uint32Array;
  private readonly found: Int32Array;
  private stamp = 0;

  private constructor(rules: readonly IndexedRule[], sampleTexts: readonly string[]) {
    const keywordIds = new Map<string, number>();
    const keywords: string[] = [];
    const ruleKeywordLists: number[][] = rules.map((rule) => {
      const ids = new Set<number>();
      for (const raw of rule.keywords) {
        const k = raw.trim().toLowerCase();
        if (k === "") continue;
        let id = keywordIds.get(k);
        if (id === undefined) {
          id = keywords.length;
          keywordIds.set(k, id);
          keywords.push(k);
        }
        ids.add(id);
      }
      return [...ids];
    });

    this.automaton = KeywordAutomaton.build(keywords);
    this.keywordCount = keywords.length;
    this.seen = new Uint32Array(keywords.length);
    this.found = new Int32Array(keywords.length);

    // How many recent messages contain each keyword, and how many rules use it: the anchor is the rarest.
    const inMessages = new Uint32Array(keywords.length);
    for (const text of sampleTexts) {
      const n = this.findKeywords(text);
      for (let i = 0; i < n; i++) inMessages[this.found[i]!]! += 1;
    }
    const inRules = new Uint32Array(keywords.length);
    for (const list of ruleKeywordLists) for (const k of list) inRules[k]! += 1;
    const rarer = (a: number, b: number) =>
      inMessages[a]! - inMessages[b]! ||
      inRules[a]! - inRules[b]! ||
      keywords[b]!.length - keywords[a]!.length;

    // Rules without a usable keyword can never fire; leave them out.
    const kept = rules.map((_, i) => i).filter((i) => ruleKeywordLists[i]!.length > 0);
    this.ruleCount = kept.length;
    this.ruleIds = new Int32Array(kept.length);
    this.ruleTypes = new Uint8Array(kept.length);
    this.ruleKeywordStart = new Uint32Array(kept.length + 1);
    this.ruleAgencyStart = new Uint32Array(kept.length + 1);
    const allKeywords: number[] = [];
    const allAgencies: number[] = [];
    const anchors = new Uint32Array(kept.length);
    const perAnchor = new Uint32Array(keywords.length + 1);
    kept.forEach((ruleIndex, r) => {
      const rule = rules[ruleIndex]!;
      const list = ruleKeywordLists[ruleIndex]!;
      this.ruleIds[r] = rule.id;
      const types = rulePriorityTypes(rule.priorityLevels);
      this.ruleTypes[r] = types ? [...types].reduce((mask, t) => mask | TYPE_BITS[t], 0) : ALL_TYPES;
      this.ruleKeywordStart[r] = allKeywords.length;
      const anchor = list.reduce((best, k) => (rarer(k, best) < 0 ? k : best));
      anchors[r] = anchor;
      perAnchor[anchor + 1]! += 1;
      // The anchor is known to be present when a rule is looked at: store only the others.
      for (const k of list) if (k !== anchor) allKeywords.push(k);
      this.ruleAgencyStart[r] = allAgencies.length;
      allAgencies.push(...new Set(rule.agencies));
    });
    this.ruleKeywordStart[kept.length] = allKeywords.length;
    this.ruleAgencyStart[kept.length] = allAgencies.length;
    this.ruleKeywords = Uint32Array.from(allKeywords);
    this.ruleAgencies = Int32Array.from(allAgencies);

    for (let k = 0; k < keywords.length; k++) perAnchor[k + 1]! += perAnchor[k]!;
    this.anchorStart = perAnchor;
    this.anchorRules = new Uint32Array(kept.length);
    const fill = perAnchor.slice(0, keywords.length);
    for (let r = 0; r < kept.length; r++) this.anchorRules[fill[anchors[r]!]!++] = r;
  }

  /**
   * Indexes the rules. `sampleTexts` (recent alert messages) let the index anchor each rule on the
   * keyword that occurs least often in real traffic; without them, on the one fewest rules use.
   */
  static build(rules: readonly IndexedRule[], sampleTexts: readonly string[] = []): RuleIndex {
    return new RuleIndex(rules, sampleTexts);
  }

  /**
   * The ids of the rules whose keywords all occur in `message` (case-insensitive), whose types
   * include `type` and whose agencies (if any) include one of `agencyIds`. Not yet checked: that the
   * owner is assigned to the agency now.
   */
  candidates(message: string, type: string, agencyIds: readonly number[]): number[] {
    const bit = TYPE_BITS[normalizeAlertType(type)];
    const n = this.findKeywords(message);
    const out: number[] = [];
    const { seen, stamp, found } = this;
    for (let i = 0; i < n; i++) {
      const k = found[i]!;
      for (let p = this.anchorStart[k]!; p < this.anchorStart[k + 1]!; p++) {
        const r = this.anchorRules[p]!;
        if ((this.ruleTypes[r]! & bit) === 0) continue;
        let all = true;
        for (let q = this.ruleKeywordStart[r]!; q < this.ruleKeywordStart[r + 1]!; q++) {
          if (seen[this.ruleKeywords[q]!] !== stamp) {
            all = false;
            break;
          }
        }
        if (!all || !this.agencyAllowed(r, agencyIds)) continue;
        out.push(this.ruleIds[r]!);
      }
    }
    return out;
  }

  /** Bytes held by the index's arrays, the automaton's included (not the rule objects it was built from). */
  byteSize(): number {
    return [
      this.ruleIds,
      this.ruleTypes,
      this.ruleKeywordStart,
      this.ruleKeywords,
      this.ruleAgencyStart,
      this.ruleAgencies,
      this.anchorStart,
      this.anchorRules,
      this.seen,
      this.found,
    ].reduce((n, a) => n + a.byteLength, this.automaton.byteSize());
  }

  /** Lower-cases the text and fills `found` with the distinct keywords in it; returns their count. */
  private findKeywords(text: string): number {
    this.stamp = this.stamp === 0xffffffff ? 1 : this.stamp + 1;
    if (this.stamp === 1) this.seen.fill(0);
    return this.automaton.findAll(text.toLowerCase(), this.seen, this.stamp, this.found);
  }

  private agencyAllowed(r: number, agencyIds: readonly number[]): boolean {
    const start = this.ruleAgencyStart[r]!;
    const end = this.ruleAgencyStart[r + 1]!;
    if (start === end) return true;
    for (let q = start; q < end; q++) if (agencyIds.includes(this.ruleAgencies[q]!)) return true;
    return false;
  }
}
