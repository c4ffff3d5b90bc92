import { loadLocalities } from "../../server/src/shared/localities/localities.js";

/**
 * Made-up pager traffic in the real Victorian grammar (DESIGN.md 'Pager messages'), and keyword
 * rules of the kind members write, for the rule benchmarks. Deterministic for a given seed.
 */

export function seededRandom(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

const INCIDENTS = [
  ["STRUC1", "SHED FIRE"],
  ["STRUC1", "HOUSE FIRE"],
  ["STRUC3", "SMOKE FROM ROOF"],
  ["G&SC1", "GRASS FIRE"],
  ["G&SC3", "BURN OFF OUT OF CONTROL"],
  ["G&SC1", "SCRUB FIRE SPREADING"],
  ["RESCC1", "MVA PERSON TRAPPED"],
  ["RESCC1", "CAR VS TREE"],
  ["ALARC1", "ALARM OPERATING"],
  ["ALARC3", "SMOKE ALARM OPERATING"],
  ["NOSTC1", "CAR FIRE"],
  ["NOSTC3", "RUBBISH FIRE"],
  ["INCIC1", "POWER LINES DOWN"],
  ["INCIC3", "GAS LEAK"],
  ["HAZMC1", "FUEL SPILL"],
] as const;

const SES_JOBS = [
  "BUILDING DAMAGE ROOF LEAKING",
  "TREE DOWN ACROSS ROAD",
  "TREE ON HOUSE",
  "FLOODING WATER IN HOUSE",
  "ASSIST AMBULANCE LIFT",
  "ANIMAL RESCUE",
  "STORM DAMAGE FENCE DOWN",
];

const ADMIN = [
  "TEST PAGE PLEASE IGNORE",
  "MEMBERS MEETING TONIGHT 1930 AT STATION",
  "TRUCK OFF THE RUN FOR SERVICE",
  "TOTAL FIRE BAN TOMORROW",
  "TRAINING CANCELLED THIS WEEK",
];

const STREET_NAMES = [
  "HIGH",
  "MAIN",
  "STATION",
  "CHURCH",
  "VICTORIA",
  "QUEEN",
  "KING",
  "WILLIAM",
  "ELIZABETH",
  "BRIDGE",
  "MILL",
  "SCHOOL",
  "HOSPITAL",
  "RAILWAY",
  "PARK",
  "FOREST",
  "HILL",
  "LAKE",
  "RIVER",
  "CREEK",
  "GOLF",
  "OLD",
  "NEW",
  "EAST",
  "WEST",
  "NORTH",
  "SOUTH",
  "FERN",
  "WATTLE",
  "GUM",
  "ACACIA",
  "BANKSIA",
  "MURRAY",
  "HUME",
  "MIDLAND",
  "CALDER",
  "WESTERN",
  "PRINCES",
  "MAROONDAH",
  "BURWOOD",
  "WELLINGTON",
];
const STREET_TYPES = ["RD", "ST", "AV", "CT", "DR", "HWY", "CRES", "PDE", "LANE", "GR"];

export type PagerMessage = { raw: string; display: string; type: string };

export type Vocabulary = { suburbs: string[]; streets: string[]; brigades: string[] };

/** The vocabulary of Victorian traffic: real VIC localities, common street names, brigade codes. */
export function victorianVocabulary(): Vocabulary {
  const suburbs = [
    ...new Set(
      loadLocalities()
        .filter((l) => l.state === "VIC")
        .map((l) => l.suburb.toUpperCase()),
    ),
  ].sort();
  const streets = STREET_NAMES.flatMap((n) => STREET_TYPES.slice(0, 3).map((t) => `${n} ${t}`));
  const brigades = suburbs.map((s) => s.replace(/[^A-Z]/g, "").slice(0, 4));
  return { suburbs, streets, brigades: [...new Set(brigades)] };
}

/** One pager message; about 70% CFA/FRV turnouts, 20% SES jobs, 10% administrative. */
export function pagerMessage(vocab: Vocabulary, next: () => number, seq: number): PagerMessage {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!;
  const suburb = pick(vocab.suburbs);
  const brigade = `${suburb.replace(/[^A-Z]/g, "").slice(0, 4)}`;
  const street = `${1 + Math.floor(next() * 200)} ${pick(STREET_NAMES)} ${pick(STREET_TYPES)}`;
  const cross = `${pick(STREET_NAMES)} ${pick(STREET_TYPES)}`;
  const cross2 = `${pick(STREET_NAMES)} ${pick(STREET_TYPES)}`;
  const map =
    next() < 0.5
      ? `M ${1 + Math.floor(next() * 300)} ${"ABCDEFGHJK"[Math.floor(next() * 10)]}${1 + Math.floor(next() * 12)}`
      : `SVC ${6000 + Math.floor(next() * 3000)} ${"ABCDEFGHJK"[Math.floor(next() * 10)]}${1 + Math.floor(next() * 12)}`;
  const grid = `(${100000 + Math.floor(next() * 899999)})`;
  const roll = next();
  let raw: string;
  if (roll < 0.7) {
    const [code, what] = pick(INCIDENTS);
    const job = `F${251100000 + seq}`;
    const emergency = next() < 0.75;
    raw = emergency
      ? `@@ALERT ${job} ${brigade}${1 + Math.floor(next() * 3)} ${code} ${what} ${street} ${suburb} /${cross} //${cross2} ${map} ${grid} C${brigade} [${brigade}]`
      : `Hb${brigade} ${code} ${what} ${street} ${suburb} /${cross} ${map} ${grid} ${job} [${brigade}]`;
  } else if (roll < 0.9) {
    raw = `Hb S${251100000 + seq} SES ${pick(SES_JOBS)} ${street} ${suburb} ${map} [SES${brigade}]`;
  } else {
    raw = `QD ${brigade} ${pick(ADMIN)} [${brigade}]`;
  }
  const type = raw.startsWith("@@") ? "emergency" : raw.startsWith("Hb") ? "non-emergency" : "administrative";
  return { raw, display: raw.replace(/^(@@|Hb|QD)\s*/, ""), type };
}

const RULE_WORDS = [
  "fire",
  "shed",
  "house",
  "grass",
  "scrub",
  "tree",
  "flood",
  "mva",
  "trapped",
  "alarm",
  "gas",
  "roof",
];
const RULE_CODES = INCIDENTS.map(([code]) => code.toLowerCase());

/**
 * A keyword rule of 1 to 4 keywords (30/40/20/10%), the way members write them: their suburb or
 * brigade code, often with an incident code or word, sometimes a street.
 */
export function ruleKeywords(vocab: Vocabulary, next: () => number): string[] {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!;
  const count = [1, 1, 1, 2, 2, 2, 2, 3, 3, 4][Math.floor(next() * 10)]!;
  const keywords: string[] = [];
  // The first keyword anchors the rule to a place (suburb or brigade), as real rules do.
  keywords.push(
    next() < 0.75 ? pick(vocab.suburbs).split(" ")[0]!.toLowerCase() : pick(vocab.brigades).toLowerCase(),
  );
  while (keywords.length < count) {
    const roll = next();
    if (roll < 0.4) keywords.push(pick(RULE_CODES));
    else if (roll < 0.8) keywords.push(pick(RULE_WORDS));
    else keywords.push(pick(STREET_NAMES).toLowerCase());
  }
  return [...new Set(keywords)];
}
