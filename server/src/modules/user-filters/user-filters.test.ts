import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, type TestApp } from "../../../test/build-app.js";
import { createUser, signIn } from "../../../test/factories.js";
import { agencies, securityConfig, userFilters } from "../../db/schema.js";
import { hiddenAgencyIds } from "../../shared/hidden-agencies.js";

let app: TestApp;
const ids: Record<string, number> = {};

beforeAll(async () => {
  app = await buildTestApp();
  // Every test signs in fresh users from the one test address.
  await app.db
    .update(securityConfig)
    .set({ value: "1000" })
    .where(eq(securityConfig.key, "otp_requests_per_ip"));
  for (const a of await app.db.select().from(agencies)) ids[a.code] = a.id;
});
afterAll(() => app.cleanup());

type Method = "GET" | "POST" | "DELETE";
const auth = (token: string) => ({ authorization: `Bearer ${token}` });

/** A signed-in user of CFA and SES, with a call helper bound to their token. */
async function member(options: { isAdmin?: boolean; agencyCodes?: string[] } = {}) {
  const user = await createUser(app, {
    agencyCodes: options.agencyCodes ?? ["CFA", "SES"],
    isAdmin: options.isAdmin,
  });
  const token = await signIn(app, user.phone);
  const call = (method: Method, url: string, payload?: object) =>
    app.inject({ method, url: `/api${url}`, headers: auth(token), ...(payload ? { payload } : {}) });
  return { user, call };
}

const filter = (agencyCode: string, isEnabled: boolean) => ({
  filter_type: "agency",
  filter_value: String(ids[agencyCode]),
  is_enabled: isEnabled,
});

describe("user filter routes", () => {
  it.each([
    ["GET", "/user-filters"],
    ["GET", "/user-filters/available"],
    ["POST", "/user-filters", { filter_type: "agency", filter_value: "1", is_enabled: true }],
    ["POST", "/user-filters/bulk", { filters: [] }],
    ["DELETE", "/user-filters/1"],
    ["DELETE", "/user-filters"],
  ] as Array<[Method, string, object?]>)(
    "%s %s needs a signed-in user (401)",
    async (method, url, payload) => {
      const res = await app.inject({ method, url: `/api${url}`, ...(payload ? { payload } : {}) });
      expect(res.statusCode).toBe(401);
      expect(res.json()).toMatchObject({ success: false, errorType: "unauthorized" });
    },
  );
});

describe("available agencies", () => {
  it("offers a user their own agencies as filter_value, name and code", async () => {
    const { call } = await member();
    const res = await call("GET", "/user-filters/available");
    expect(res.statusCode).toBe(200);
    const data = res.json().data as Array<Record<string, string>>;
    expect(data.map((a) => a.code).sort()).toEqual(["CFA", "SES"]);
    expect(data.find((a) => a.code === "CFA")).toEqual({
      filter_value: String(ids.CFA),
      name: "Country Fire Authority",
      code: "CFA",
    });
  });

  it("offers an admin every agency", async () => {
    const { call } = await member({ isAdmin: true, agencyCodes: ["FRV"] });
    const data = (await call("GET", "/user-filters/available")).json().data as Array<{ code: string }>;
    expect(data.map((a) => a.code)).toEqual(
      expect.arrayContaining(["FRV", "CFA", "SES", "Other", "UNMAPPED"]),
    );
  });
});

describe("saving filters", () => {
  it("saves one filter and updates it in place when saved again", async () => {
    const { call, user } = await member();
    const first = await call("POST", "/user-filters", filter("CFA", false));
    expect(first.statusCode).toBe(200);
    const row = first.json().data;
    expect(Object.keys(row).sort()).toEqual([
      "created_at",
      "filter_type",
      "filter_value",
      "id",
      "is_enabled",
      "updated_at",
      "user_id",
    ]);
    expect(row).toMatchObject({
      user_id: user.id,
      filter_type: "agency",
      filter_value: String(ids.CFA),
      is_enabled: false,
    });

    // A number is accepted as the value too (the domain schema turns it into a string).
    const second = await call("POST", "/user-filters", { ...filter("CFA", true), filter_value: ids.CFA });
    expect(second.json().data).toMatchObject({ id: row.id, is_enabled: true });
    const list = (await call("GET", "/user-filters")).json().data;
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ id: row.id, is_enabled: true });
  });

  it("refuses a filter for an agency that is not the user's, or does not exist, with 400", async () => {
    const { call } = await member();
    for (const value of [String(ids.FRV), "999999", "abc"]) {
      const res = await call("POST", "/user-filters", {
        filter_type: "agency",
        filter_value: value,
        is_enabled: false,
      });
      expect(res.statusCode, value).toBe(400);
      expect(res.json()).toMatchObject({ success: false, errorType: "validation_error" });
    }
    expect((await call("GET", "/user-filters")).json().data).toEqual([]);
  });

  it("rejects a malformed filter with 400", async () => {
    const { call } = await member();
    for (const body of [
      { filter_type: "type", filter_value: String(ids.CFA), is_enabled: true },
      { filter_type: "agency", filter_value: "", is_enabled: true },
      { filter_type: "agency", filter_value: String(ids.CFA), is_enabled: "no" },
      {},
    ]) {
      expect((await call("POST", "/user-filters", body)).statusCode).toBe(400);
    }
  });

  it("replaces all agency filters with a bulk save", async () => {
    const { call, user } = await member();
    await call("POST", "/user-filters", filter("CFA", false));
    const res = await call("POST", "/user-filters/bulk", {
      filters: [filter("SES", false), filter("CFA", true), filter("SES", true)],
    });
    expect(res.statusCode).toBe(200);
    const saved = (await call("GET", "/user-filters")).json().data as Array<Record<string, unknown>>;
    expect(saved.map((f) => [f.filter_value, f.is_enabled]).sort()).toEqual(
      [
        [String(ids.CFA), true],
        [String(ids.SES), true],
      ].sort(),
    );
    expect(await hiddenAgencyIds(app.db, user.id)).toEqual([]);

    const cleared = await call("POST", "/user-filters/bulk", { filters: [] });
    expect(cleared.json().data).toEqual([]);
    expect((await call("GET", "/user-filters")).json().data).toEqual([]);
  });

  it("changes nothing when a bulk save names an agency that is not the user's", async () => {
    const { call } = await member();
    await call("POST", "/user-filters", filter("CFA", false));
    const res = await call("POST", "/user-filters/bulk", {
      filters: [filter("SES", false), filter("FRV", false)],
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toContain(String(ids.FRV));
    const saved = (await call("GET", "/user-filters")).json().data;
    expect(saved).toHaveLength(1);
    expect(saved[0]).toMatchObject({ filter_value: String(ids.CFA), is_enabled: false });
  });

  it("rejects a bulk body that is not a list of filters", async () => {
    const { call } = await member();
    expect((await call("POST", "/user-filters/bulk", {})).statusCode).toBe(400);
    expect(
      (await call("POST", "/user-filters/bulk", { filters: [{ filter_type: "agency" }] })).statusCode,
    ).toBe(400);
  });
});

describe("removing filters", () => {
  it("deletes the user's own filter, and answers 404 for someone else's", async () => {
    const owner = await member();
    const other = await member();
    const mine = (await owner.call("POST", "/user-filters", filter("CFA", false))).json().data;

    const theirs = await other.call("DELETE", `/user-filters/${mine.id}`);
    expect(theirs.statusCode).toBe(404);
    expect(theirs.json()).toMatchObject({ success: false, errorType: "not_found" });
    expect(await app.db.select().from(userFilters).where(eq(userFilters.id, mine.id))).toHaveLength(1);

    expect((await owner.call("DELETE", `/user-filters/${mine.id}`)).statusCode).toBe(200);
    expect((await owner.call("DELETE", `/user-filters/${mine.id}`)).statusCode).toBe(404);
    expect((await owner.call("DELETE", "/user-filters/abc")).statusCode).toBe(400);
  });

  it("resets all of the user's filters and nobody else's", async () => {
    const owner = await member();
    const other = await member();
    await owner.call("POST", "/user-filters/bulk", { filters: [filter("CFA", false), filter("SES", true)] });
    await other.call("POST", "/user-filters", filter("CFA", false));

    const res = await owner.call("DELETE", "/user-filters");
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ success: true, deleted: 2 });
    expect((await owner.call("GET", "/user-filters")).json().data).toEqual([]);
    expect((await other.call("GET", "/user-filters")).json().data).toHaveLength(1);
  });
});

describe("hiddenAgencyIds", () => {
  it("lists the agencies the user chose to hide, as numbers", async () => {
    const { call, user } = await member();
    await call("POST", "/user-filters/bulk", { filters: [filter("CFA", false), filter("SES", true)] });
    expect(await hiddenAgencyIds(app.db, user.id)).toEqual([ids.CFA]);
    const nobody = await createUser(app);
    expect(await hiddenAgencyIds(app.db, nobody.id)).toEqual([]);
  });
});
