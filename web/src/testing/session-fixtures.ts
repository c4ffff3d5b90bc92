import { STORAGE_KEYS } from "@turnout/domain";
import type { SessionAgency, SessionUser } from "../api/types";

function base64Url(value: unknown): string {
  return btoa(JSON.stringify(value)).replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_");
}

/** A token of the right shape (not signed) whose expiry is `secondsLeft` from now. */
export function makeToken(secondsLeft = 3600): string {
  const exp = Math.floor(Date.now() / 1000) + secondsLeft;
  return `${base64Url({ alg: "HS256", typ: "JWT" })}.${base64Url({ sub: 7, sid: 1, exp })}.signature`;
}

export const testUser: SessionUser = {
  id: 7,
  first_name: "Sam",
  last_name: "Taylor",
  phone: "+61412345678",
  is_admin: false,
};

export const testAgency: SessionAgency = { id: 2, name: "Country Fire Authority", code: "CFA" };

/** Put a session into localStorage the way a sign-in leaves it. */
export function storeSession({
  token = makeToken(),
  user = testUser,
  agency = testAgency,
}: {
  token?: string;
  user?: SessionUser;
  agency?: SessionAgency | null;
} = {}): void {
  localStorage.setItem(STORAGE_KEYS.token, token);
  localStorage.setItem(STORAGE_KEYS.user, JSON.stringify(user));
  localStorage.setItem(STORAGE_KEYS.agency, JSON.stringify(agency));
}
