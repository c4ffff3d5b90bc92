import { randomBytes } from "node:crypto";
import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { crc32, deflateSync } from "node:zlib";
import { SIGNUP_AGENCY_CODES, UNMAPPED_AGENCY } from "@turnout/domain";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, type TestApp } from "../../../test/build-app.js";
import { createUser, signIn } from "../../../test/factories.js";
import { pngDeclaring } from "../../../test/images.js";
import { agencies, alertRecipients, alerts, capcodes, userFilters } from "../../db/schema.js";

let app: TestApp;
let adminToken: string;
let userToken: string;

beforeAll(async () => {
  app = await buildTestApp();
  const admin = await createUser(app, { isAdmin: true });
  const user = await createUser(app, { agencyCodes: ["CFA"] });
  adminToken = await signIn(app, admin.phone);
  userToken = await signIn(app, user.phone);
});
afterAll(() => app.cleanup());

const auth = (token: string) => ({ authorization: `Bearer ${token}` });

type Method = "GET" | "POST" | "PUT" | "DELETE";
const call = (method: Method, url: string, payload?: object, token = adminToken) =>
  app.inject({ method, url: `/api${url}`, headers: auth(token), ...(payload ? { payload } : {}) });

const logoDir = () => path.join(app.config.dataDir, "uploads", "agency-logos");

async function agencyId(code: string): Promise<number> {
  const [row] = await app.db.select().from(agencies).where(eq(agencies.code, code));
  return row!.id;
}

let seq = 0;
async function newAgency(fields: { name?: string; code?: string } = {}) {
  seq += 1;
  const res = await call("POST", "/admin/agencies", {
    name: fields.name ?? `Brigade ${seq}`,
    code: fields.code ?? `BRIG${seq}_${randomBytes(2).toString("hex").toUpperCase()}`,
  });
  expect(res.statusCode).toBe(201);
  return res.json().data as { id: number; name: string; code: string };
}

/** A 1×1 red PNG, built from its chunks so the test does not depend on a fixture file. */
function tinyPng(): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, "latin1"), data]);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const ihdr = Buffer.from([0, 0, 0, 1, 0, 0, 0, 1, 8, 2, 0, 0, 0]);
  const pixels = deflateSync(Buffer.from([0, 255, 0, 0]));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", ihdr),
    chunk("IDAT", pixels),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

function multipart(field: string, fileName: string, type: string, bytes: Buffer) {
  const boundary = `----turnout${randomBytes(8).toString("hex")}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="${fileName}"\r\nContent-Type: ${type}\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  return {
    payload: Buffer.concat([head, bytes, tail]),
    headers: { "content-type": `multipart/form-data; boundary=${boundary}` },
  };
}

function uploadLogo(id: number, body: ReturnType<typeof multipart>, token = adminToken) {
  return app.inject({
    method: "POST",
    url: `/api/admin/agencies/${id}/logo`,
    headers: { ...auth(token), ...body.headers },
    payload: body.payload,
  });
}

async function insertAlert(agency: number, capcode: { id: number; capcode: string }) {
  const [alert] = await app.db
    .insert(alerts)
    .values({
      type: "emergency",
      rawMessage: "@@ALERT F250000001 STRUCTURE FIRE",
      message: "ALERT F250000001 STRUCTURE FIRE",
      capcode: capcode.capcode,
      capcodeId: capcode.id,
      agencyId: agency,
      dedupeHash: randomBytes(16).toString("hex"),
      sentAt: new Date(),
    })
    .returning();
  await app.db
    .insert(alertRecipients)
    .values({ alertId: alert!.id, capcodeId: capcode.id, agencyId: agency });
  return alert!;
}

describe("admin agency routes", () => {
  const routes: Array<[Method, string, object?]> = [
    ["GET", "/admin/agencies"],
    ["POST", "/admin/agencies", { name: "Nope", code: "NOPE" }],
    ["GET", "/admin/agencies/1"],
    ["PUT", "/admin/agencies/1", { name: "Nope" }],
    ["DELETE", "/admin/agencies/1"],
    ["POST", "/admin/agencies/1/logo"],
    ["DELETE", "/admin/agencies/1/logo"],
    ["GET", "/admin/agencies/1/capcodes"],
    ["POST", "/admin/agencies/1/capcodes/bulk", { capcodes: [{ capcode: "1234567" }] }],
  ];

  it.each(routes)("%s %s needs a token (401) and an admin (403)", async (method, url, payload) => {
    const anonymous = await app.inject({ method, url: `/api${url}`, ...(payload ? { payload } : {}) });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json()).toMatchObject({ success: false, errorType: "unauthorized" });
    const user = await call(method, url, payload, userToken);
    expect(user.statusCode).toBe(403);
    expect(user.json()).toMatchObject({ success: false, errorType: "forbidden" });
  });
});

describe("agencies", () => {
  it("lists every agency with its capcode and user counts and exactly the wire fields", async () => {
    const cfa = await agencyId("CFA");
    await app.db.insert(capcodes).values({ capcode: "0100001", agencyId: cfa });
    const res = await call("GET", "/admin/agencies");
    expect(res.statusCode).toBe(200);
    const list = res.json().data as Array<Record<string, unknown>>;
    const codes = list.map((a) => a.code);
    expect(codes).toEqual(expect.arrayContaining([...SIGNUP_AGENCY_CODES, UNMAPPED_AGENCY.code]));
    const row = list.find((a) => a.code === "CFA")!;
    expect(Object.keys(row).sort()).toEqual([
      "capcode_count",
      "code",
      "created_at",
      "description",
      "id",
      "logo_path",
      "name",
      "updated_at",
      "user_count",
    ]);
    expect(row.capcode_count).toBeGreaterThanOrEqual(1);
    expect(row.user_count).toBeGreaterThanOrEqual(1);
  });

  it("creates an agency, upper-casing its code, and reads it back", async () => {
    const res = await call("POST", "/admin/agencies", {
      name: "  Wodonga Brigade ",
      code: "wod-1",
      description: "North east",
    });
    expect(res.statusCode).toBe(201);
    const created = res.json().data;
    expect(created).toMatchObject({
      name: "Wodonga Brigade",
      code: "WOD-1",
      description: "North east",
      logo_path: null,
      capcode_count: 0,
      user_count: 0,
    });
    const read = await call("GET", `/admin/agencies/${created.id}`);
    expect(read.statusCode).toBe(200);
    expect(read.json().data).toMatchObject({ id: created.id, code: "WOD-1" });
  });

  it("refuses a code that is taken, whatever its case, with 409", async () => {
    const clash = await call("POST", "/admin/agencies", { name: "Again", code: "cfa" });
    expect(clash.statusCode).toBe(409);
    expect(clash.json()).toMatchObject({ success: false, errorType: "conflict" });
    expect(clash.json().message).toContain("CFA");
    const other = await call("POST", "/admin/agencies", { name: "Other again", code: "OTHER" });
    expect(other.statusCode).toBe(409);
  });

  it("rejects a code with other characters, and a missing name, with 400", async () => {
    const bad = await call("POST", "/admin/agencies", { name: "Bad", code: "NO SPACES" });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ success: false, errorType: "validation_error" });
    expect((await call("POST", "/admin/agencies", { code: "NONAME" })).statusCode).toBe(400);
    expect((await call("POST", "/admin/agencies", { name: "   ", code: "BLANK" })).statusCode).toBe(400);
  });

  it("answers 404 for an unknown agency and 400 for an id that is not a number", async () => {
    for (const [method, url, payload] of [
      ["GET", "/admin/agencies/999999"],
      ["PUT", "/admin/agencies/999999", { name: "X" }],
      ["DELETE", "/admin/agencies/999999"],
      ["DELETE", "/admin/agencies/999999/logo"],
      ["GET", "/admin/agencies/999999/capcodes"],
      ["POST", "/admin/agencies/999999/capcodes/bulk", { capcodes: [{ capcode: "1" }] }],
    ] as Array<[Method, string, object?]>) {
      const res = await call(method, url, payload);
      expect(res.statusCode, `${method} ${url}`).toBe(404);
      expect(res.json()).toMatchObject({
        success: false,
        errorType: "not_found",
        message: "Agency not found",
      });
    }
    expect((await call("GET", "/admin/agencies/abc")).statusCode).toBe(400);
    expect((await call("GET", "/admin/agencies/99999999999")).statusCode).toBe(400);
  });

  it("renames an agency, changes its code and clears its description", async () => {
    const agency = await newAgency();
    const res = await call("PUT", `/admin/agencies/${agency.id}`, {
      name: "Renamed",
      code: "renamed_1",
      description: "",
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ name: "Renamed", code: "RENAMED_1", description: null });
    const clash = await call("PUT", `/admin/agencies/${agency.id}`, { code: "SES" });
    expect(clash.statusCode).toBe(409);
  });

  it("keeps the codes of built-in agencies but lets them be renamed", async () => {
    const ses = await agencyId("SES");
    const refused = await call("PUT", `/admin/agencies/${ses}`, { code: "SES2" });
    expect(refused.statusCode).toBe(409);
    expect(refused.json().message).toContain("cannot be changed");
    const other = await agencyId("Other");
    const same = await call("PUT", `/admin/agencies/${other}`, { code: "Other", description: "Anyone else" });
    expect(same.statusCode).toBe(200);
    expect(same.json().data).toMatchObject({ code: "Other", description: "Anyone else" });
  });

  it.each([...SIGNUP_AGENCY_CODES, UNMAPPED_AGENCY.code])(
    "refuses to delete the built-in %s agency",
    async (code) => {
      const res = await call("DELETE", `/admin/agencies/${await agencyId(code)}`);
      expect(res.statusCode).toBe(409);
      expect(res.json()).toMatchObject({ success: false, errorType: "conflict" });
      expect(res.json().message).toContain("built-in agency and cannot be deleted");
    },
  );

  it("refuses to delete an agency that still has capcodes, naming how many", async () => {
    const agency = await newAgency();
    await app.db.insert(capcodes).values([
      { capcode: "0200001", agencyId: agency.id },
      { capcode: "0200002", agencyId: agency.id },
    ]);
    const res = await call("DELETE", `/admin/agencies/${agency.id}`);
    expect(res.statusCode).toBe(409);
    expect(res.json().message).toContain("still has 2 capcodes");
  });

  it("refuses to delete an agency alerts were filed under", async () => {
    const agency = await newAgency();
    const [capcode] = await app.db
      .insert(capcodes)
      .values({ capcode: "0200101", agencyId: agency.id })
      .returning();
    await insertAlert(agency.id, capcode!);
    const other = await newAgency();
    await call("POST", `/admin/capcodes/${capcode!.id}/assign`, { agency_id: other.id });
    const res = await call("DELETE", `/admin/agencies/${agency.id}`);
    expect(res.statusCode).toBe(409);
    expect(res.json().message).toContain("1 alert");
  });

  it("deletes an agency whose capcodes were all deleted, their kept rows with it", async () => {
    const agency = await newAgency();
    const [capcode] = await app.db
      .insert(capcodes)
      .values({ capcode: "0200201", agencyId: agency.id })
      .returning();
    expect((await call("DELETE", `/admin/capcodes/${capcode!.id}`)).statusCode).toBe(200);
    expect((await call("GET", `/admin/agencies/${agency.id}`)).json().data.capcode_count).toBe(0);
    const res = await call("DELETE", `/admin/agencies/${agency.id}`);
    expect(res.statusCode).toBe(200);
    expect(await app.db.select().from(capcodes).where(eq(capcodes.id, capcode!.id))).toEqual([]);
  });

  it("deletes an empty agency with its feed filters and logo", async () => {
    const agency = await newAgency();
    const upload = await uploadLogo(agency.id, multipart("logo", "logo.png", "image/png", tinyPng()));
    expect(upload.statusCode).toBe(200);
    const file = path.basename(upload.json().data.logo_path);
    const admin = await createUser(app, { isAdmin: true });
    await app.db
      .insert(userFilters)
      .values({ userId: admin.id, filterType: "agency", filterValue: String(agency.id), isEnabled: false });

    const res = await call("DELETE", `/admin/agencies/${agency.id}`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ success: true });
    expect((await call("GET", `/admin/agencies/${agency.id}`)).statusCode).toBe(404);
    expect(existsSync(path.join(logoDir(), file))).toBe(false);
    const left = await app.db
      .select()
      .from(userFilters)
      .where(eq(userFilters.filterValue, String(agency.id)));
    expect(left).toEqual([]);
  });
});

describe("agency logos", () => {
  it("stores an uploaded PNG under DATA_DIR and serves it back as image/png", async () => {
    const agency = await newAgency();
    const png = tinyPng();
    const res = await uploadLogo(agency.id, multipart("logo", "logo.png", "image/png", png));
    expect(res.statusCode).toBe(200);
    const logoPath = res.json().data.logo_path as string;
    expect(logoPath).toMatch(new RegExp(`^/api/uploads/agency-logos/${agency.id}-[0-9a-f]{16}\\.png$`));
    expect(readdirSync(logoDir())).toContain(path.basename(logoPath));

    const served = await app.inject({ method: "GET", url: logoPath });
    expect(served.statusCode).toBe(200);
    expect(served.headers["content-type"]).toBe("image/png");
    expect(served.headers["x-content-type-options"]).toBe("nosniff");
    expect(served.rawPayload.equals(png)).toBe(true);

    const read = await call("GET", `/admin/agencies/${agency.id}`);
    expect(read.json().data.logo_path).toBe(logoPath);
  });

  it("refuses a logo whose header declares 50,000 x 50,000 pixels, and keeps the one it had", async () => {
    const agency = await newAgency();
    const first = await uploadLogo(agency.id, multipart("logo", "logo.png", "image/png", tinyPng()));
    const before = readdirSync(logoDir()).length;
    // 2 MB is a logo's limit in bytes: this one is small, and 2.5 gigapixels once decoded.
    const res = await uploadLogo(
      agency.id,
      multipart("logo", "bomb.png", "image/png", pngDeclaring(50_000, 50_000, 1_500_000)),
    );
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toMatch(/^The image is too large: 50000 x 50000 pixels \(2500 megapixels\)/);
    expect(readdirSync(logoDir()).length).toBe(before);
    const read = await call("GET", `/admin/agencies/${agency.id}`);
    expect(read.json().data.logo_path).toBe(first.json().data.logo_path);
  });

  it("replacing a logo deletes the old file", async () => {
    const agency = await newAgency();
    const first = await uploadLogo(agency.id, multipart("logo", "a.png", "image/png", tinyPng()));
    const firstPath = first.json().data.logo_path as string;
    const second = await uploadLogo(agency.id, multipart("logo", "b.png", "image/png", tinyPng()));
    expect(second.statusCode).toBe(200);
    const secondPath = second.json().data.logo_path as string;
    expect(secondPath).not.toBe(firstPath);
    expect(existsSync(path.join(logoDir(), path.basename(firstPath)))).toBe(false);
    expect(existsSync(path.join(logoDir(), path.basename(secondPath)))).toBe(true);
    expect((await app.inject({ method: "GET", url: firstPath })).statusCode).toBe(404);
  });

  it("rejects a file whose bytes are not an image, whatever type it declares", async () => {
    const agency = await newAgency();
    const fake = Buffer.from("<html><script>alert(1)</script></html>");
    const res = await uploadLogo(agency.id, multipart("logo", "logo.png", "image/png", fake));
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ success: false, errorType: "validation_error" });
    expect(res.json().message).toContain("content");
    const gif = Buffer.from("GIF89a\x01\x00\x01\x00", "latin1");
    expect((await uploadLogo(agency.id, multipart("logo", "logo.gif", "image/gif", gif))).statusCode).toBe(
      400,
    );
    const exe = await uploadLogo(
      agency.id,
      multipart("logo", "x.exe", "application/octet-stream", tinyPng()),
    );
    expect(exe.statusCode).toBe(400);
    expect((await call("GET", `/admin/agencies/${agency.id}`)).json().data.logo_path).toBeNull();
  });

  it("rejects a logo over 2 MB with 413 and keeps nothing", async () => {
    const agency = await newAgency();
    const before = readdirSync(logoDir()).length;
    const big = Buffer.concat([tinyPng(), Buffer.alloc(2 * 1024 * 1024)]);
    const res = await uploadLogo(agency.id, multipart("logo", "big.png", "image/png", big));
    expect(res.statusCode).toBe(413);
    expect(res.json()).toMatchObject({ success: false, message: "The logo must be at most 2 MB." });
    expect(readdirSync(logoDir()).length).toBe(before);
  });

  it("asks for well-formed multipart data with the file in the field 'logo'", async () => {
    const agency = await newAgency();
    const json = await call("POST", `/admin/agencies/${agency.id}/logo`, { logo: "x" });
    expect(json.statusCode).toBe(400);
    const wrongField = await uploadLogo(agency.id, multipart("image", "a.png", "image/png", tinyPng()));
    expect(wrongField.statusCode).toBe(400);
    expect(wrongField.json().message).toContain("'logo'");
    const cutOff = await app.inject({
      method: "POST",
      url: `/api/admin/agencies/${agency.id}/logo`,
      headers: { ...auth(adminToken), "content-type": "multipart/form-data; boundary=xyz" },
      payload: '--xyz\r\nContent-Disposition: form-data; name="logo"; filename="a.png"\r\n\r\nabc',
    });
    expect(cutOff.statusCode).toBe(400);
    expect(cutOff.json()).toMatchObject({ success: false, errorType: "validation_error" });
    const unknown = await uploadLogo(999999, multipart("logo", "a.png", "image/png", tinyPng()));
    expect(unknown.statusCode).toBe(404);
  });

  it("serves an SVG logo with a policy that keeps its scripts from running", async () => {
    const agency = await newAgency();
    const svg = Buffer.from(
      '<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"><script>alert(1)</script></svg>',
    );
    const res = await uploadLogo(agency.id, multipart("logo", "logo.svg", "image/svg+xml", svg));
    expect(res.statusCode).toBe(200);
    const served = await app.inject({ method: "GET", url: res.json().data.logo_path });
    expect(served.statusCode).toBe(200);
    expect(served.headers["content-type"]).toMatch(/^image\/svg\+xml/);
    expect(served.headers["content-security-policy"]).toBe("default-src 'none'; style-src 'unsafe-inline'");
  });

  it("takes JPEG and WebP by their bytes", async () => {
    const agency = await newAgency();
    const jpeg = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(16)]);
    const jpg = await uploadLogo(agency.id, multipart("logo", "a.jpg", "image/jpeg", jpeg));
    expect(jpg.json().data.logo_path).toMatch(/\.jpg$/);
    const served = await app.inject({ method: "GET", url: jpg.json().data.logo_path });
    expect(served.headers["content-type"]).toBe("image/jpeg");
    const webp = Buffer.concat([Buffer.from("RIFF\x10\x00\x00\x00WEBPVP8 ", "latin1"), Buffer.alloc(8)]);
    const wp = await uploadLogo(agency.id, multipart("logo", "a.webp", "image/webp", webp));
    expect(wp.json().data.logo_path).toMatch(/\.webp$/);
  });

  it("removes a logo and its file", async () => {
    const agency = await newAgency();
    const up = await uploadLogo(agency.id, multipart("logo", "a.png", "image/png", tinyPng()));
    const file = path.basename(up.json().data.logo_path);
    const res = await call("DELETE", `/admin/agencies/${agency.id}/logo`);
    expect(res.statusCode).toBe(200);
    expect(res.json().data.logo_path).toBeNull();
    expect(existsSync(path.join(logoDir(), file))).toBe(false);
    expect((await call("DELETE", `/admin/agencies/${agency.id}/logo`)).statusCode).toBe(200);
  });

  it("does not list the logo directory or serve files outside it", async () => {
    expect((await app.inject({ method: "GET", url: "/api/uploads/agency-logos/" })).statusCode).toBe(404);
    expect((await app.inject({ method: "GET", url: "/api/uploads/agency-logos" })).statusCode).toBe(404);
    const outside = await app.inject({
      method: "GET",
      url: "/api/uploads/agency-logos/..%2f..%2fsms-outbox.jsonl",
    });
    expect(outside.statusCode).toBe(404);
  });
});

describe("agency capcodes", () => {
  it("lists an agency's capcodes", async () => {
    const agency = await newAgency();
    await app.db.insert(capcodes).values([
      { capcode: "0300002", agencyId: agency.id, alias: "Pumper" },
      { capcode: "0300001", agencyId: agency.id },
    ]);
    const res = await call("GET", `/admin/agencies/${agency.id}/capcodes`);
    expect(res.statusCode).toBe(200);
    const data = res.json().data;
    expect(data.map((c: { capcode: string }) => c.capcode)).toEqual(["0300001", "0300002"]);
    expect(Object.keys(data[0]).sort()).toEqual([
      "agency_id",
      "alias",
      "area",
      "capcode",
      "created_at",
      "id",
      "updated_at",
    ]);
  });

  it("bulk-creates, moves and leaves capcodes, counting each, and moves earlier alerts with them", async () => {
    const target = await newAgency();
    const source = await newAgency();
    const [moving] = await app.db
      .insert(capcodes)
      .values({ capcode: "0400001", agencyId: source.id, alias: "Old" })
      .returning();
    await app.db.insert(capcodes).values({ capcode: "0400002", agencyId: target.id, area: "Shepparton" });
    const alert = await insertAlert(source.id, moving!);

    const res = await call("POST", `/admin/agencies/${target.id}/capcodes/bulk`, {
      capcodes: [
        { capcode: "400001" },
        { capcode: "0400002" },
        { capcode: "400003", alias: "Tanker", area: "Mooroopna" },
        { capcode: "400003", alias: "Tanker 2" },
      ],
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toEqual({ created: 1, moved: 1, updated: 0, unchanged: 1 });

    const list = (await call("GET", `/admin/agencies/${target.id}/capcodes`)).json().data;
    expect(list.map((c: { capcode: string }) => c.capcode)).toEqual(["0400001", "0400002", "0400003"]);
    expect(list[0].alias).toBe("Old");
    expect(list[2]).toMatchObject({ alias: "Tanker 2", area: null });
    const [recipient] = await app.db
      .select()
      .from(alertRecipients)
      .where(eq(alertRecipients.alertId, alert.id));
    expect(recipient!.agencyId).toBe(target.id);

    const again = await call("POST", `/admin/agencies/${target.id}/capcodes/bulk`, {
      capcodes: [
        { capcode: "0400002", area: "Shepparton" },
        { capcode: "0400001", alias: "" },
      ],
    });
    expect(again.json().data).toEqual({ created: 0, moved: 0, updated: 1, unchanged: 1 });
  });

  it("rejects a bulk list that is empty, too long or has a bad capcode", async () => {
    const agency = await newAgency();
    const url = `/admin/agencies/${agency.id}/capcodes/bulk`;
    expect((await call("POST", url, { capcodes: [] })).statusCode).toBe(400);
    const many = Array.from({ length: 1001 }, (_, i) => ({ capcode: String(5_000_000 + i) }));
    expect((await call("POST", url, { capcodes: many })).statusCode).toBe(400);
    const bad = await call("POST", url, { capcodes: [{ capcode: "12AB" }] });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().message).toContain("capcodes.0.capcode");
    expect((await call("POST", url, {})).statusCode).toBe(400);
  });

  it("accepts a thousand capcodes in one request", async () => {
    const agency = await newAgency();
    const many = Array.from({ length: 1000 }, (_, i) => ({ capcode: String(6_000_000 + i) }));
    const res = await call("POST", `/admin/agencies/${agency.id}/capcodes/bulk`, { capcodes: many });
    expect(res.statusCode).toBe(200);
    expect(res.json().data.created).toBe(1000);
    expect((await call("GET", `/admin/agencies/${agency.id}`)).json().data.capcode_count).toBe(1000);
  });
});
