import { gzipSync } from "node:zlib";
import type { Page } from "playwright-core";
import { registerActiveAccount } from "./accounts.js";
import { agencyIds, ingest, mapCapcode, type SignedInSession, signInByApi } from "./alerts.js";
import type { RunningServer } from "./server.js";

/**
 * A member's feed of realistic turnout pages (issue 31's measurements): an admin maps a CFA capcode,
 * a CFA member registers, `count` pages are ingested a minute apart (each its own job, so each its own
 * card), and the member is signed in through the API. Start the server with
 * `{ INGEST_API_KEY: FEED_INGEST_KEY, ADMIN_PHONES: FEED_ADMIN_PHONE }`.
 */
export const FEED_INGEST_KEY = "feed-fixture-ingest-key-0123456789";
export const FEED_ADMIN_PHONE = "+61400000931";
export const FEED_CAPCODE = "1236931";

const CALLS = [
  "STRUC1 HOUSE FIRE 14 HIGH ST KANGAROO FLAT /OLYMPIC PDE //HOWARD ST M 608 C4",
  "G&SC3 GRASS FIRE CALDER HWY KANGAROO FLAT /LOCKWOOD RD //ANDREW ST M 611 B7",
  "RESCC1 MVA PERSON TRAPPED CALDER ALT HWY GOLDEN SQUARE /CHUM ST M 609 E1",
  "ALARC1 AFA BENDIGO HOSPITAL 100 BARNARD ST BENDIGO /MUNDY ST //BAYNE ST M 608 J2",
  "NOSTC1 SMOKE IN AREA 3 EAGLEHAWK RD IRONBARK /NOLAN ST M 607 K5",
  "INCIC1 GAS LEAK 77 RAILWAY PL KANGAROO FLAT /HIGH ST M 612 A1",
];

/** The `n`th page of the fixture: a distinct job number, so no two pages group into one card. */
export function turnoutPage(n: number): string {
  const job = String(261_100_000 + n).padStart(9, "0");
  return `@@ALERT F${job} KFLT1 ${CALLS[n % CALLS.length]} (5${String(n).padStart(5, "0")}) CKFLT CBEND [KFLT]`;
}

/** Ingests pages `from`..`from + count - 1`, one a minute ending `endsAgoMs` before now. */
export async function ingestTurnoutPages(
  server: RunningServer,
  from: number,
  count: number,
  endsAgoMs = 0,
): Promise<void> {
  const end = Date.now() - endsAgoMs;
  for (let start = 0; start < count; start += 1000) {
    const batch = Array.from({ length: Math.min(1000, count - start) }, (_, i) => {
      const n = from + start + i;
      return {
        capcode: FEED_CAPCODE,
        message: turnoutPage(n),
        timestamp: new Date(end - (count - start - i) * 60_000).toISOString(),
      };
    });
    await ingest(server, FEED_INGEST_KEY, batch);
  }
}

/** Seeds a member's feed of `count` alerts and returns the member's session. */
export async function seedMemberFeed(server: RunningServer, count: number): Promise<SignedInSession> {
  const admin = await signInByApi(server, FEED_ADMIN_PHONE, "feed-fixture-admin");
  await mapCapcode(server, admin.token, FEED_CAPCODE, (await agencyIds(server)).CFA!, "Bendigo");
  const member = await registerActiveAccount(server, "0412 555 931", {
    firstName: "Robin",
    lastName: "Hale",
  });
  await ingestTurnoutPages(server, 0, count, 5 * 60_000);
  return signInByApi(server, member.phone, "feed-fixture-member");
}

export type LoadedScript = { url: string; raw: number; gzip: number };

/**
 * Records every JavaScript file the page fetches (network responses, service worker or not) from
 * now on; `scripts()` gives each once with its raw size and its gzip size (level 9, as the build's
 * precompressed .gz files), measured from the bytes the browser received.
 */
export function recordScripts(page: Page): { scripts: () => Promise<LoadedScript[]> } {
  const pending = new Map<string, Promise<LoadedScript | null>>();
  page.on("response", (response) => {
    const url = response.url();
    if (pending.has(url) || !/\.m?js(\?|$)/.test(new URL(url).pathname)) return;
    pending.set(
      url,
      response
        .body()
        .then((body) => ({ url, raw: body.length, gzip: gzipSync(body, { level: 9 }).length }))
        .catch(() => null),
    );
  });
  return {
    scripts: async () =>
      (await Promise.all(pending.values())).filter((script): script is LoadedScript => script !== null),
  };
}
