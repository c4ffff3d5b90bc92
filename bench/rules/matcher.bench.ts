import { performance } from "node:perf_hooks";
import { KeywordAutomaton } from "../../server/src/modules/rules/automaton.js";
import { type IndexedRule, RuleIndex } from "../../server/src/modules/rules/rule-index.js";
import { machineLine } from "../support/machine.js";
import { pagerMessage, ruleKeywords, seededRandom, victorianVocabulary } from "./vic-pager.js";

/**
 * Matcher throughput: 100,000 approved rules of 1 to 4 keywords against made-up Victorian pager
 * messages, on one core (the index is synchronous code). Run: npx tsx bench/rules/matcher.bench.ts
 */
const RULES = Number(process.env.RULES ?? 100_000);
const MESSAGES = Number(process.env.MESSAGES ?? 20_000);
const ROUNDS = 5;

const vocab = victorianVocabulary();
const next = seededRandom(20251122);
const rules: IndexedRule[] = Array.from({ length: RULES }, (_, i) => {
  const agencies = next() < 0.7 ? [] : [1 + Math.floor(next() * 4)];
  const priorityLevels = next() < 0.6 ? [] : next() < 0.7 ? ["emergency"] : ["emergency", "non-emergency"];
  return { id: i + 1, keywords: ruleKeywords(vocab, next), agencies, priorityLevels };
});
const messages = Array.from({ length: MESSAGES }, (_, i) => pagerMessage(vocab, next, i));
const sample = messages.slice(0, 1000).map((m) => m.display);

let t0 = performance.now();
const index = RuleIndex.build(rules, sample);
const buildMs = performance.now() - t0;

let candidates = 0;
let best = Number.POSITIVE_INFINITY;
for (let round = 0; round < ROUNDS; round++) {
  candidates = 0;
  t0 = performance.now();
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    candidates += index.candidates(m.display, m.type, [1 + (i % 4)]).length;
  }
  best = Math.min(best, performance.now() - t0);
}

// For comparison: the same automaton, but every rule filed under all its keywords, with a hit count
// per rule (a rule fires when its count reaches its keyword total). Same answers, more work per
// message when keywords are shared by many rules.
const countingMps = (() => {
  const ids = new Map<string, number>();
  const idOf = (k: string) => {
    if (!ids.has(k)) ids.set(k, ids.size);
    return ids.get(k)!;
  };
  const ruleKw = rules.map((r) => [...new Set(r.keywords.map((k) => k.toLowerCase()))].map(idOf));
  const postings: number[][] = Array.from({ length: ids.size }, () => []);
  ruleKw.forEach((list, r) => {
    for (const k of list) postings[k]!.push(r);
  });
  const automaton = KeywordAutomaton.build([...ids.keys()]);
  const seen = new Uint32Array(ids.size);
  const found = new Int32Array(ids.size);
  const hits = new Uint8Array(rules.length);
  const touched: number[] = [];
  let stamp = 0;
  let fired = 0;
  let increments = 0;
  const t = performance.now();
  for (const m of messages) {
    const n = automaton.findAll(m.display.toLowerCase(), seen, ++stamp, found);
    for (let i = 0; i < n; i++) {
      increments += postings[found[i]!]!.length;
      for (const r of postings[found[i]!]!) {
        if (hits[r] === 0) touched.push(r);
        if (++hits[r]! === ruleKw[r]!.length) fired++;
      }
    }
    for (const r of touched) hits[r] = 0;
    touched.length = 0;
  }
  const ms = performance.now() - t;
  return {
    messages_per_second: Math.round(messages.length / (ms / 1000)),
    rules_with_all_keywords_per_message: Math.round((fired / messages.length) * 100) / 100,
    increments_per_message: Math.round(increments / messages.length),
  };
})();

const keywordChars = rules.reduce((n, r) => n + r.keywords.reduce((a, k) => a + k.length, 0), 0);
console.log(machineLine());
console.log(
  JSON.stringify(
    {
      rules: index.ruleCount,
      distinct_keywords: index.keywordCount,
      keyword_characters: keywordChars,
      trie_nodes: index.automaton.nodeCount,
      build_ms: Math.round(buildMs),
      index_mb: Math.round((index.byteSize() / 1048576) * 10) / 10,
      automaton_kb: Math.round(index.automaton.byteSize() / 1024),
      messages: messages.length,
      avg_message_chars: Math.round(messages.reduce((n, m) => n + m.display.length, 0) / messages.length),
      candidates_per_message: Math.round((candidates / messages.length) * 100) / 100,
      best_of_rounds: ROUNDS,
      messages_per_second: Math.round(messages.length / (best / 1000)),
      counting_variant: countingMps,
      example: messages[0]!.raw,
    },
    null,
    2,
  ),
);
