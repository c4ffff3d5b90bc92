import { describe, expect, it } from "vitest";
import { decodeTokenPayload, isStoredSessionValid, secondsUntilExpiry } from "./session.js";

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/** Base64url-encodes ASCII text (test helper, so the tests need neither Buffer nor btoa). */
function base64Url(text: string): string {
  const bytes = [...text].map((c) => c.charCodeAt(0));
  let out = "";
  for (let i = 0; i < bytes.length; i += 3) {
    const [a = 0, b = 0, c = 0] = bytes.slice(i, i + 3);
    const n = (a << 16) | (b << 8) | c;
    const chars = [18, 12, 6, 0].map((shift) => ALPHABET[(n >> shift) & 63]).join("");
    out += chars.slice(0, bytes.length - i >= 3 ? 4 : bytes.length - i + 1);
  }
  return out;
}

function tokenWith(payload: object): string {
  return `${base64Url('{"alg":"HS256","typ":"JWT"}')}.${base64Url(JSON.stringify(payload))}.c2lnbmF0dXJl`;
}

const NOW = Date.UTC(2026, 10, 22, 3, 0, 0);
const nowSeconds = NOW / 1000;
const user = { id: 1 };
const agency = { id: 2 };

describe("decodeTokenPayload", () => {
  it("reads the JSON payload of a three-part token", () => {
    expect(decodeTokenPayload(tokenWith({ sub: "7", exp: 1800000000 }))).toEqual({
      sub: "7",
      exp: 1800000000,
    });
  });

  it("decodes base64url characters and UTF-8 text", () => {
    // {"n":"Zoë>?"} in base64url uses '-' and '_' and a two-byte UTF-8 character.
    const payload = decodeTokenPayload("aGVhZGVy.eyJuIjoiWm_Dqz4_In0.sig");
    expect(payload).toEqual({ n: "Zoë>?" });
  });

  it("returns null for malformed tokens", () => {
    expect(decodeTokenPayload("")).toBeNull();
    expect(decodeTokenPayload("a.b")).toBeNull();
    expect(decodeTokenPayload("a.b.c.d")).toBeNull();
    expect(decodeTokenPayload("a..c")).toBeNull();
    expect(decodeTokenPayload("a.!!!!.c")).toBeNull();
    expect(decodeTokenPayload(`a.${base64Url("not json")}.c`)).toBeNull();
    expect(decodeTokenPayload(`a.${base64Url("[1,2]")}.c`)).toBeNull();
    expect(decodeTokenPayload(`a.${base64Url("null")}.c`)).toBeNull();
    expect(decodeTokenPayload("a._w.c")).toBeNull();
  });
});

describe("secondsUntilExpiry", () => {
  it("returns the seconds left until exp", () => {
    expect(secondsUntilExpiry(tokenWith({ exp: nowSeconds + 600 }), NOW)).toBe(600);
  });

  it("is negative once expired", () => {
    expect(secondsUntilExpiry(tokenWith({ exp: nowSeconds - 10 }), NOW)).toBe(-10);
  });

  it("returns null without a numeric exp", () => {
    expect(secondsUntilExpiry(tokenWith({ sub: "1" }), NOW)).toBeNull();
    expect(secondsUntilExpiry(tokenWith({ exp: "soon" }), NOW)).toBeNull();
    expect(secondsUntilExpiry("garbage", NOW)).toBeNull();
  });
});

describe("isStoredSessionValid", () => {
  const valid = tokenWith({ exp: nowSeconds + 3600 });

  it("accepts token, user and agency with more than 300 s left", () => {
    expect(isStoredSessionValid({ token: valid, user, agency }, NOW)).toBe(true);
    expect(isStoredSessionValid({ token: tokenWith({ exp: nowSeconds + 301 }), user, agency }, NOW)).toBe(
      true,
    );
  });

  it("rejects a token with exactly 300 s left", () => {
    expect(isStoredSessionValid({ token: tokenWith({ exp: nowSeconds + 300 }), user, agency }, NOW)).toBe(
      false,
    );
  });

  it("rejects an expired token", () => {
    expect(isStoredSessionValid({ token: tokenWith({ exp: nowSeconds - 1 }), user, agency }, NOW)).toBe(
      false,
    );
  });

  it("rejects when token, user or agency is missing", () => {
    expect(isStoredSessionValid({ user, agency }, NOW)).toBe(false);
    expect(isStoredSessionValid({ token: "", user, agency }, NOW)).toBe(false);
    expect(isStoredSessionValid({ token: null, user, agency }, NOW)).toBe(false);
    expect(isStoredSessionValid({ token: valid, agency }, NOW)).toBe(false);
    expect(isStoredSessionValid({ token: valid, user: null, agency }, NOW)).toBe(false);
    expect(isStoredSessionValid({ token: valid, user }, NOW)).toBe(false);
  });

  it("accepts an agency stored as null, since a login result may carry no agency", () => {
    expect(isStoredSessionValid({ token: valid, user, agency: null }, NOW)).toBe(true);
  });

  it("rejects a token without three parts or without exp", () => {
    const [header, payload] = valid.split(".");
    expect(isStoredSessionValid({ token: `${header}.${payload}`, user, agency }, NOW)).toBe(false);
    expect(isStoredSessionValid({ token: tokenWith({ sub: "1" }), user, agency }, NOW)).toBe(false);
  });
});
