import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { suburbKey } from "@turnout/domain";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, type TestApp } from "../../../test/build-app.js";
import { createUser, signIn } from "../../../test/factories.js";
import { addressPoints, agencies, alertPositions, capcodes, postcodes } from "../../db/schema.js";
import { ensurePostcodesSeeded } from "../../shared/localities/postcodes-seed.js";
import { loadAddressDataset, removeAddressDataset } from "./address-dataset.js";
import { forgetAddressDataset, placeStoredAlerts } from "./positions.js";

const KEY = "map-test-ingest-key-0000000";
let app: TestApp;
let cfaToken: string;
let sesToken: string;
const agencyId: Record<string, number> = {};
const dir = mkdtempSync(path.join(tmpdir(), "turnout-addresses-"));

type Position = { latitude: number; longitude: number; precision: string };
type MapJob = {
  alert: { id: number; message: string; agency_code: string };
  pages: number;
  position: Position;
};

async function ingest(capcode: string, message: string): Promise<number> {
  const res = await app.inject({
    method: "POST",
    url: "/api/ingest/messages",
    headers: { authorization: `Bearer ${KEY}` },
    payload: { messages: [{ capcode, message }] },
  });
  expect(res.statusCode).toBe(200);
  return (res.json().data as { id: number }[])[0]!.id;
}

const get = (url: string, token: string) =>
  app.inject({ method: "GET", url, headers: { authorization: `Bearer ${token}` } });

/** The alert's position as GET /api/alerts/:id serves it, once ingest has placed it (after its reply). */
async function positionOf(id: number, token = cfaToken): Promise<Position | null> {
  for (let i = 0; i < 500; i++) {
    const res = await get(`/api/alerts/${id}`, token);
    expect(res.statusCode).toBe(200);
    const position = res.json().data.position as Position | null;
    if (position) return position;
    await new Promise((r) => setTimeout(r, 20));
  }
  return null;
}

/** The bundled locality data's coordinates of a suburb (its first postcode in VIC), as the postcode table has them. */
async function suburbCentre(name: string) {
  await ensurePostcodesSeeded(app.db);
  const rows = await app.db
    .select()
    .from(postcodes)
    .where(and(eq(postcodes.suburb, name), eq(postcodes.state, "VIC")))
    .orderBy(postcodes.postcode);
  const row = rows.find((r) => r.latitude && r.longitude)!;
  return { latitude: Number(row.latitude), longitude: Number(row.longitude) };
}

beforeAll(async () => {
  app = await buildTestApp({ INGEST_API_KEY: KEY });
  for (const a of await app.db.select().from(agencies)) agencyId[a.code] = a.id;
  await app.db.insert(capcodes).values([
    { capcode: "0310001", agencyId: agencyId.CFA!, area: "Bendigo" },
    { capcode: "0410001", agencyId: agencyId.SES!, area: "Geelong" },
  ]);
  cfaToken = await signIn(app, (await createUser(app, { agencyCodes: ["CFA"] })).phone);
  sesToken = await signIn(app, (await createUser(app, { agencyCodes: ["SES"] })).phone);
});
afterAll(async () => {
  await app.cleanup();
});

describe("positions of alerts (issue 34)", () => {
  it("places an address at its suburb without a dataset, and serves position and precision", async () => {
    const id = await ingest(
      "0310001",
      "@@ALERT F251201001 KANG1 STRUC1 HOUSE FIRE 105 HIGH ST KANGAROO FLAT /OLYMPIC PDE SVC 7785 J10 (471230) CKANG [KANG]",
    );
    const position = await positionOf(id);
    expect(position).toEqual({ ...(await suburbCentre("Kangaroo Flat")), precision: "suburb" });
  });

  it("places a message's own coordinates as they are", async () => {
    const id = await ingest(
      "0410001",
      "@@ALERT S251201214 SES VICSES LOST PERSON SEARCH LAT/LON:-37.42, 145.88 [SES]",
    );
    expect(await positionOf(id, sesToken)).toEqual({
      latitude: -37.42,
      longitude: 145.88,
      precision: "coordinates",
    });
  });

  it("stores no position for a message without an address", async () => {
    const id = await ingest("0310001", "QD BRIGADE MEETING TONIGHT 1930");
    await new Promise((r) => setTimeout(r, 200));
    const res = await get(`/api/alerts/${id}`, cfaToken);
    expect(res.json().data.position).toBeNull();
    expect(await app.db.select().from(alertPositions).where(eq(alertPositions.alertId, id))).toEqual([]);
  });

  it("places at the house once a G-NAF extract is loaded, and at a corner of two streets", async () => {
    // GNAF Core's layout: |-separated, street type and suffix in their own columns, in full.
    const gnaf = path.join(dir, "GNAF_CORE_VIC_test.psv");
    writeFileSync(
      gnaf,
      [
        "ADDRESS_DETAIL_PID|NUMBER_FIRST|STREET_NAME|STREET_TYPE|STREET_SUFFIX|LOCALITY_NAME|STATE|POSTCODE|LONGITUDE|LATIDUDE_WRONG|LATITUDE",
        "GAVIC1|105|HIGH|STREET||KANGAROO FLAT|VIC|3555|144.2421|x|-36.7921",
        "GAVIC2|107|HIGH|STREET||KANGAROO FLAT|VIC|3555|144.2423|x|-36.7923",
        "GAVIC3|14|LYDIARD|STREET|SOUTH|BALLARAT CENTRAL|VIC|3350|143.8561|x|-37.5611",
        "GAVIC4|1|HORNE|STREET||SUNBURY|VIC|3429|144.7261|x|-37.5781",
        "GAVIC5|2|BARKLY|STREET||SUNBURY|VIC|3429|144.7263|x|-37.5779",
        "GAVIC6|3|NOWHERE|STREET||SUNBURY|VIC|3429|-0.1|x|51.5",
      ].join("\n"),
    );
    const load = await loadAddressDataset(app.db, gnaf);
    expect(load).toEqual({
      source: "GNAF_CORE_VIC_test.psv",
      loaded: 5,
      skipped: { "coordinates outside Australia": 1 },
    });
    forgetAddressDataset(app.db);

    const house = await ingest(
      "0310001",
      "@@ALERT F251201002 KANG1 STRUC1 SHED FIRE 105 HIGH ST KANGAROO FLAT SVC 7785 J10 (471230) CKANG [KANG]",
    );
    expect(await positionOf(house)).toEqual({ latitude: -36.7921, longitude: 144.2421, precision: "street" });
    const corner = await ingest(
      "0310001",
      "@@ALERT F251201022 SUNB1 RESCC1 MVA CNR HORNE ST / BARKLY ST SUNBURY /O'SHANASSY ST M 382 J5 (112233) CSUNB [SUNB]",
    );
    const placed = (await positionOf(corner))!;
    expect(placed.precision).toBe("intersection");
    expect(placed.latitude).toBeCloseTo(-37.578, 4);
  });

  it("reads an OpenStreetMap extract's columns, and places stored alerts again on request", async () => {
    const osm = path.join(dir, "osm-vic.csv");
    writeFileSync(
      osm,
      [
        "lon,lat,addr:housenumber,addr:street,addr:suburb,addr:state",
        '144.2501,-36.7999,7,"Olympic Parade","Kangaroo Flat",VIC',
        "144.2503,-36.8001,9,Olympic Parade,Kangaroo Flat,VIC",
      ].join("\n"),
    );
    const id = await ingest(
      "0310001",
      "@@ALERT F251201003 KANG1 ALARC1 AFA 7 OLYMPIC PDE KANGAROO FLAT SVC 7785 J10 (471230) CKANG [KANG]",
    );
    expect(await positionOf(id)).toMatchObject({ precision: "suburb" });
    await expect(loadAddressDataset(app.db, osm)).resolves.toMatchObject({ loaded: 2, skipped: {} });
    const again = await placeStoredAlerts(app.db, { all: true });
    expect(again.placed.street).toBeGreaterThanOrEqual(2);
    expect(await positionOf(id)).toEqual({ latitude: -36.7999, longitude: 144.2501, precision: "street" });
    const stored = await app.db.select().from(addressPoints).where(eq(addressPoints.source, "osm-vic.csv"));
    expect(stored.map((p) => [p.street, p.suburb, p.number, p.state])).toEqual([
      ["OLYMPIC PDE", suburbKey("Kangaroo Flat"), 7, "VIC"],
      ["OLYMPIC PDE", suburbKey("Kangaroo Flat"), 9, "VIC"],
    ]);
    expect(await removeAddressDataset(app.db, "osm-vic.csv")).toBe(2);
  });

  it("refuses a file whose header lacks a needed column, keeping what was loaded", async () => {
    const bad = path.join(dir, "GNAF_CORE_VIC_test.psv");
    writeFileSync(bad, "NUMBER_FIRST|STREET_NAME|LATITUDE|LONGITUDE\n1|HIGH|-37|144\n");
    await expect(loadAddressDataset(app.db, bad)).rejects.toThrow(/no column for suburb/);
    const kept = await app.db
      .select()
      .from(addressPoints)
      .where(eq(addressPoints.source, "GNAF_CORE_VIC_test.psv"));
    expect(kept).toHaveLength(5);
  });
});

describe("GET /api/map/jobs", () => {
  it("gives the member's jobs of the window with their positions, and none of other agencies", async () => {
    const res = await get("/api/map/jobs?hours=2", cfaToken);
    expect(res.statusCode).toBe(200);
    const data = res.json().data as { jobs: MapJob[]; unplaced: number[]; hours: number };
    expect(data.hours).toBe(2);
    expect(data.jobs.length).toBeGreaterThanOrEqual(3);
    expect(data.jobs.every((job) => job.alert.agency_code === "CFA")).toBe(true);
    expect(
      data.jobs.every((job) => ["street", "intersection", "suburb"].includes(job.position.precision)),
    ).toBe(true);
    expect(data.unplaced.length).toBe(1);
    const ses = (await get("/api/map/jobs", sesToken)).json().data as { jobs: MapJob[] };
    expect(ses.jobs.map((job) => job.alert.agency_code)).toEqual(["SES"]);
    expect(ses.jobs[0]!.position).toEqual({ latitude: -37.42, longitude: 145.88, precision: "coordinates" });
  });

  it("answers a bad window with a 400 naming it, and a stranger with 401", async () => {
    const bad = await get("/api/map/jobs?hours=0", cfaToken);
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toMatch(/hours/);
    expect((await app.inject({ method: "GET", url: "/api/map/jobs" })).statusCode).toBe(401);
  });

  it("gives the tile settings", async () => {
    const res = await get("/api/map/settings", cfaToken);
    expect(res.json().data).toEqual({
      tile_url: "https://tile.openstreetmap.org/{z}/{x}/{y}.png",
      attribution: "© OpenStreetMap contributors",
      hours: 24,
    });
  });
});
