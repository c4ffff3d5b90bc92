import { api } from "./client";

/** One bundled locality (SPEC 7 'GET /postcode/…' data). */
export interface PostcodeMatch {
  postcode: string;
  suburb: string;
  state_abbreviation: string;
}

/** What the postcode calls answer: the matches (a 404 with `error` when there are none). */
export interface PostcodeReply {
  success: boolean;
  data: PostcodeMatch[];
}

// Public lookups (registration uses them signed out): a 401 or 403 there says nothing about a session.
const publicCall = { ignoreUnauthorized: true, handlesForbidden: true } as const;

/** The bundled Australian localities, by postcode or by suburb text (SPEC 5 location search). */
export const placesApi = {
  lookupPostcode(postcode: string, signal?: AbortSignal): Promise<PostcodeReply> {
    return api.get(`/postcode/lookup/${encodeURIComponent(postcode)}`, { ...publicCall, signal });
  },

  searchLocations(text: string, signal?: AbortSignal): Promise<PostcodeReply> {
    return api.get(`/postcode/search/${encodeURIComponent(text)}`, { ...publicCall, signal });
  },
};
