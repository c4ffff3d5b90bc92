import { PagerTraffic, RARE_SUBURB } from "./messages.js";

/**
 * The search benchmark's query classes (bench/server/search.ts), shared with drivers that run the same
 * searches elsewhere (e.g. the PagerMon side-by-side). Every frequency below is a property of the
 * generator in messages.ts (seeded), so it holds at any size: the loaders plant RARE_SUBURB in exactly
 * RARE_COUNT messages whatever the total.
 */
export type SearchClass = {
  /** Short label for tables. */
  name: string;
  /** The text typed into the search box ("" = no search: the first page of the list). */
  search: string;
  /** Counted by the targets (issue 16): p50 / p95 limits apply. */
  required: boolean;
  /** What the generator makes of it, for the reader (matches across every agency). */
  expected: string;
};

/** How many messages carry RARE_SUBURB (planted by the loaders, whatever the total). */
export const RARE_COUNT = 100;

/** The Zipf rank of the "mid-frequency suburb" class (~0.34 % of messages). */
const MID_RANK = 17;

export function searchClasses(traffic = new PagerTraffic(1)): SearchClass[] {
  const mid = traffic.suburbAtRank(MID_RANK);
  return [
    { name: "very common word", search: "FIRE", required: true, expected: "40 % of messages" },
    {
      name: "rare word",
      search: RARE_SUBURB,
      required: true,
      expected: `${RARE_COUNT} messages (planted)`,
    },
    {
      name: "common + rare",
      search: `FIRE ${RARE_SUBURB}`,
      required: true,
      expected: `~41 of the ${RARE_COUNT}`,
    },
    {
      name: "three words",
      search: "STRUC1 HOUSE FIRE",
      required: true,
      expected: "~4.4 % of messages",
    },
    {
      name: "two common words, 0 results",
      search: "STRUC1 ALARC1",
      required: true,
      expected: "none (20 % each, never together)",
    },
    { name: "list page 1", search: "", required: true, expected: "every message" },
    {
      name: "mid-frequency suburb",
      search: mid.name,
      required: false,
      expected: `~${(mid.share * 100).toFixed(2)} % of messages`,
    },
  ];
}

/** The classes with the generator's default seed (what the loaders use). */
export const SEARCH_CLASSES: SearchClass[] = searchClasses();

/**
 * The viewers the search benchmark measures as: an admin in admin context, and users scoped to their
 * agencies (codes from lib/agencies.ts). "small agency" is VICSES Mid West (~3 % of alerts, almost never
 * paged to fire jobs), the case the targets name beside the admin.
 */
export type SearchScope = { name: string; adminContext: boolean; agencyCodes: string[]; small?: boolean };

export const SEARCH_SCOPES: SearchScope[] = [
  { name: "admin (admin_context)", adminContext: true, agencyCodes: [] },
  { name: "user: CFA D14 + SES Central", adminContext: false, agencyCodes: ["B-CFA-D14", "B-SES-CEN"] },
  { name: "user: CFA D24", adminContext: false, agencyCodes: ["B-CFA-D24"] },
  { name: "user: SES Mid West (small agency)", adminContext: false, agencyCodes: ["B-SES-MW"], small: true },
];
