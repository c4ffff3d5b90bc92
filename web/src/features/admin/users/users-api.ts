import { USERS_FETCH_LIMIT } from "@turnout/domain";
import { z } from "zod/mini";
import { api, type RequestOptions } from "../../../api/client";
import { orElse, orEmpty } from "../../../api/schema-helpers";

/** The account states the Users tab tells apart (issue 11 contract). */
export const USER_STATUSES = ["active", "pending_review", "unverified", "inactive"] as const;
/** One account state. */
export type UserStatus = (typeof USER_STATUSES)[number];

/** An agency as a user's list and the chooser show it. */
export const userAgencySchema = z.object({ id: z.number(), name: z.string(), code: z.string() });
/** An agency of a user. */
export type UserAgency = z.output<typeof userAgencySchema>;

/** A user in the admin view (issue 11 contract, SPEC 3 names); missing lists read as empty. */
export const adminUserSchema = z.object({
  id: z.number(),
  first_name: z.string(),
  last_name: z.string(),
  phone: z.string(),
  is_admin: z.boolean(),
  is_active: z.boolean(),
  is_verified: z.boolean(),
  // An unknown state is shown as inactive: the safe reading for an account the tab cannot place.
  status: z.catch(z.enum(USER_STATUSES), "inactive"),
  max_sessions: orElse(z.number(), null),
  active_sessions: orElse(z.number(), 0),
  last_activity: orElse(z.string(), null),
  created_at: orElse(z.string(), null),
  agencies: orEmpty(z.array(userAgencySchema)),
});
/** A user as the Users tab shows it. */
export type AdminUser = z.output<typeof adminUserSchema>;

/** One device session of a user (SPEC 3 'Device session'). */
export const userSessionSchema = z.object({
  id: z.union([z.string(), z.number()]),
  device_info: orElse(z.string(), ""),
  ip_address: orElse(z.string(), null),
  created_at: orElse(z.string(), null),
  last_activity: orElse(z.string(), null),
});
/** A device session. */
export type UserSession = z.output<typeof userSessionSchema>;

/** What the list asks the server for: free text and one state, both optional. */
export interface UserListFilter {
  search: string;
  status: UserStatus | null;
}

/** One page of users and how many match in all. */
export interface UserList {
  users: AdminUser[];
  total: number;
}

/** Body of POST /admin/users. */
export interface NewUser {
  first_name: string;
  last_name: string;
  phone: string;
  is_admin: boolean;
  agency_ids: number[];
  max_sessions?: number;
}

/** Body of PUT /admin/users/:id: only what changed. */
export type UserChanges = Partial<Pick<AdminUser, "first_name" | "last_name" | "phone" | "is_admin">>;

interface Envelope {
  success: boolean;
  data: unknown;
  total?: unknown;
}

// The tab shows the server's own words for a refusal (a guard rail such as 'You cannot deactivate
// yourself' may come as a 403), so the app-wide not-authorized dialog stays away.
const explained: Omit<RequestOptions, "method" | "body"> = { handlesForbidden: true };

const countSchema = z.object({ terminated: z.number() });
const resetSchema = z.object({ reset: z.number() });

export const usersApi = {
  async list({ search, status }: UserListFilter): Promise<UserList> {
    const reply = await api.get<Envelope>("/admin/users", {
      query: { limit: USERS_FETCH_LIMIT, offset: 0, search: search.trim(), status },
    });
    const users = z.array(adminUserSchema).parse(reply.data);
    return { users, total: typeof reply.total === "number" ? reply.total : users.length };
  },

  async create(input: NewUser): Promise<AdminUser> {
    const reply = await api.post<Envelope>("/admin/users", input, explained);
    return adminUserSchema.parse(reply.data);
  },

  async update(id: number, changes: UserChanges): Promise<AdminUser> {
    const reply = await api.put<Envelope>(`/admin/users/${id}`, changes, explained);
    return adminUserSchema.parse(reply.data);
  },

  async setAgencies(id: number, agencyIds: number[]): Promise<void> {
    await api.put(`/admin/users/${id}/agencies`, { agency_ids: agencyIds }, explained);
  },

  async setSessionLimit(id: number, maxSessions: number | null): Promise<void> {
    await api.put(`/admin/users/${id}/session-limits`, { max_sessions: maxSessions }, explained);
  },

  async setActive(id: number, isActive: boolean): Promise<AdminUser> {
    const reply = await api.patch<Envelope>(
      `/admin/users/${id}/toggle-active`,
      { is_active: isActive },
      explained,
    );
    return adminUserSchema.parse(reply.data);
  },

  async remove(id: number): Promise<void> {
    await api.delete(`/admin/users/${id}`, explained);
  },

  async sessions(id: number): Promise<UserSession[]> {
    const reply = await api.get<Envelope>(`/admin/users/${id}/sessions`);
    return z.array(userSessionSchema).parse(reply.data);
  },

  /** Ends one session, or every session of the user when `sessionId` is absent. */
  async terminate(id: number, sessionId?: UserSession["id"]): Promise<number> {
    const body = sessionId === undefined ? {} : { session_id: sessionId };
    const reply = await api.post<Envelope>(`/admin/users/${id}/sessions/terminate`, body, explained);
    return countSchema.parse(reply.data).terminated;
  },

  async agencies(): Promise<UserAgency[]> {
    const reply = await api.get<Envelope>("/admin/agencies");
    return z.array(userAgencySchema).parse(reply.data);
  },

  /** Resets the install banner of these users (all users when `userIds` is null); how many were reset. */
  async resetInstallBanner(userIds: number[] | null): Promise<number> {
    const reply =
      userIds === null
        ? await api.post<Envelope>("/admin/users/pwa-banner/reset-all", undefined, explained)
        : await api.post<Envelope>("/admin/users/pwa-banner/reset", { user_ids: userIds }, explained);
    return resetSchema.parse(reply.data).reset;
  },
};
