import type pg from "pg";
import type { Generated } from "./messages.js";

type Service = "fire" | "ses" | "ambulance";

/** Ten agencies; `weight` is the share of its service's messages it is primarily paged for. */
export const BENCH_AGENCIES: { code: string; name: string; service: Service; weight: number }[] = [
  { code: "B-CFA-D2", name: "CFA District 2", service: "fire", weight: 22 },
  { code: "B-CFA-D8", name: "CFA District 8", service: "fire", weight: 16 },
  { code: "B-CFA-D12", name: "CFA District 12", service: "fire", weight: 8 },
  { code: "B-CFA-D14", name: "CFA District 14", service: "fire", weight: 14 },
  { code: "B-CFA-D24", name: "CFA District 24", service: "fire", weight: 10 },
  { code: "B-FRV", name: "Fire Rescue Victoria", service: "fire", weight: 30 },
  { code: "B-SES-CEN", name: "VICSES Central", service: "ses", weight: 50 },
  { code: "B-SES-NE", name: "VICSES North East", service: "ses", weight: 30 },
  { code: "B-SES-MW", name: "VICSES Mid West", service: "ses", weight: 20 },
  { code: "B-AV", name: "Ambulance Victoria", service: "ambulance", weight: 100 },
];

/** Capcodes per service out of 1,000: fire 700, SES 250, ambulance 50 (split by agency weight). */
const CAPCODES_PER_SERVICE: Record<Service, number> = { fire: 700, ses: 250, ambulance: 50 };

export type BenchCapcode = { id: number; capcode: string; agencyId: number };
export type BenchAgency = {
  id: number;
  code: string;
  service: Service;
  weight: number;
  capcodes: BenchCapcode[];
};

/** Inserts the ten agencies and 1,000 capcodes mapped to them (directly in the database). */
export async function createAgencies(client: pg.Client | pg.PoolClient): Promise<BenchAgency[]> {
  const out: BenchAgency[] = [];
  let next = 0;
  for (const a of BENCH_AGENCIES) {
    const { rows } = await client.query<{ id: number }>(
      "INSERT INTO agencies (name, code, description) VALUES ($1, $2, 'benchmark') RETURNING id",
      [a.name, a.code],
    );
    const agencyId = rows[0]!.id;
    const serviceWeight = BENCH_AGENCIES.filter((b) => b.service === a.service).reduce(
      (n, b) => n + b.weight,
      0,
    );
    const count = Math.round((CAPCODES_PER_SERVICE[a.service] * a.weight) / serviceWeight);
    const codes = Array.from({ length: count }, () => String(1_100_000 + next++).padStart(7, "0"));
    const inserted = await client.query<{ id: number; capcode: string }>(
      `INSERT INTO capcodes (capcode, agency_id, area)
       SELECT c, $2, $3 FROM unnest($1::text[]) AS c RETURNING id, capcode`,
      [codes, agencyId, a.name],
    );
    out.push({
      id: agencyId,
      code: a.code,
      service: a.service,
      weight: a.weight,
      capcodes: inserted.rows.map((r) => ({ id: r.id, capcode: r.capcode, agencyId })),
    });
  }
  return out;
}

/** One of the items, chosen with probability proportional to its weight. */
export function weightedPick<T>(items: T[], weight: (item: T) => number, random: () => number): T {
  let x = random() * items.reduce((n, item) => n + weight(item), 0);
  for (const item of items) {
    x -= weight(item);
    if (x < 0) return item;
  }
  return items.at(-1)!;
}

/** The benchmark agencies and capcodes already in a database (a kept search database). */
export async function readAgencies(client: pg.Client | pg.PoolClient): Promise<BenchAgency[]> {
  const out: BenchAgency[] = [];
  for (const a of BENCH_AGENCIES) {
    const { rows } = await client.query<{ id: number }>("SELECT id FROM agencies WHERE code = $1", [a.code]);
    const agencyId = rows[0]!.id;
    const caps = await client.query<{ id: number; capcode: string }>(
      "SELECT id, capcode FROM capcodes WHERE agency_id = $1 ORDER BY id",
      [agencyId],
    );
    out.push({
      id: agencyId,
      code: a.code,
      service: a.service,
      weight: a.weight,
      capcodes: caps.rows.map((r) => ({ id: r.id, capcode: r.capcode, agencyId })),
    });
  }
  return out;
}

/**
 * Who a message is paged to, as a service would page it: fire jobs to a brigade's capcode (a quarter
 * also to a neighbouring one, road rescue sometimes to SES), SES jobs to SES (sometimes CFA too),
 * ambulance assists to Ambulance Victoria and CFA. The first capcode is the primary one.
 */
export function recipientsFor(m: Generated, agencies: BenchAgency[], random: () => number): BenchCapcode[] {
  const pick = (service: Service): BenchCapcode => {
    const pool = agencies.filter((a) => a.service === service);
    const agency = weightedPick(pool, (a) => a.weight, random);
    return agency.capcodes[Math.floor(random() * agency.capcodes.length)]!;
  };
  const out: BenchCapcode[] = [];
  if (m.service === "ses") {
    out.push(pick("ses"));
    if (random() < 0.1) out.push(pick("fire"));
  } else if (m.service === "ambulance") {
    out.push(pick("ambulance"), pick("fire"));
  } else {
    out.push(pick("fire"));
    if (random() < 0.25) out.push(pick("fire"));
    if (m.code === "RESCC1" && random() < 0.3) out.push(pick("ses"));
  }
  // One recipient row per capcode.
  return out.filter((c, i) => out.findIndex((d) => d.id === c.id) === i);
}
