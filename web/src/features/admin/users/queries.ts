import {
  keepPreviousData,
  queryOptions,
  useMutation,
  useQueries,
  useQuery,
  useQueryClient,
} from "@tanstack/react-query";
import { UNMAPPED_AGENCY } from "@turnout/domain";
import { agencyAdminKeys, agencyUnitsQueryOptions } from "../agencies/queries";
import { type UserUnit, unitsApi } from "../agencies/units-api";
import {
  type AdminUser,
  type NewUser,
  type UserChanges,
  type UserListFilter,
  type UserSession,
  usersApi,
} from "./users-api";

export const userKeys = {
  all: ["admin", "users"] as const,
  lists: () => [...userKeys.all, "list"] as const,
  list: (filter: UserListFilter) => [...userKeys.lists(), filter] as const,
  sessions: (id: number) => [...userKeys.all, "sessions", id] as const,
  units: (id: number) => [...userKeys.all, "units", id] as const,
  agencies: () => ["admin", "agencies", "choices"] as const,
};

export function usersQueryOptions(filter: UserListFilter) {
  return queryOptions({
    queryKey: userKeys.list(filter),
    queryFn: () => usersApi.list(filter),
    // While a new search loads, the last answer stays on screen instead of a blank table.
    placeholderData: keepPreviousData,
  });
}

export function userSessionsQueryOptions(id: number) {
  return queryOptions({ queryKey: userKeys.sessions(id), queryFn: () => usersApi.sessions(id) });
}

export function agencyChoicesQueryOptions() {
  // Agencies change rarely; the chooser need not ask again each time a dialog opens.
  return queryOptions({ queryKey: userKeys.agencies(), queryFn: usersApi.agencies, staleTime: 5 * 60_000 });
}

/** Users matching the filter (up to 1000) and how many match in all. */
export function useUsers(filter: UserListFilter) {
  return useQuery(usersQueryOptions(filter));
}

/** The console asks again this often whether accounts wait for review (there is no live event for it). */
const PENDING_REVIEW_REFRESH_MS = 60_000;

/**
 * How many accounts wait for an admin's review: the Users tab's badge and its filter's. Asked again
 * once a minute and whenever the list changes; null until known.
 */
export function usePendingReviewCount(enabled = true) {
  const query = useQuery({
    ...usersQueryOptions({ search: "", status: "pending_review" }),
    enabled,
    refetchInterval: PENDING_REVIEW_REFRESH_MS,
  });
  return query.data?.total ?? null;
}

/** A user's units (issue 26), fetched while `id` is set. */
export function useUserUnits(id: number | null) {
  return useQuery({
    queryKey: userKeys.units(id ?? 0),
    queryFn: ({ signal }) => unitsApi.listUserUnits(id ?? 0, signal),
    enabled: id !== null,
  });
}

/** A unit a user can be given, with its agency's name (the chooser groups by it). */
export type UnitChoice = Pick<UserUnit, "id" | "name" | "agency_id" | "agency_name"> & {
  code?: string | null;
};

/**
 * The units of every agency (UNMAPPED aside), by agency then name, loaded once `enabled` (when the
 * chooser first opens: most edits never need them).
 */
export function useUnitChoices(agencies: { id: number; name: string; code: string }[], enabled: boolean) {
  const assignable = agencies.filter((agency) => agency.code !== UNMAPPED_AGENCY.code);
  return useQueries({
    queries: assignable.map((agency) => ({ ...agencyUnitsQueryOptions(agency.id), enabled })),
    combine: (results) => ({
      choices: results.flatMap((result, index): UnitChoice[] =>
        (result.data ?? []).map((unit) => ({
          id: unit.id,
          name: unit.name,
          code: unit.code,
          agency_id: unit.agency_id,
          agency_name: assignable[index]?.name ?? "",
        })),
      ),
      loading: results.some((result) => result.isPending && result.fetchStatus === "fetching"),
      failed: results.some((result) => result.isError),
    }),
  });
}

/** A user's device sessions, fetched while `id` is set. */
export function useUserSessions(id: number | null) {
  return useQuery({ ...userSessionsQueryOptions(id ?? 0), enabled: id !== null });
}

/** The agencies a user can be assigned to. */
export function useAgencyChoices() {
  return useQuery(agencyChoicesQueryOptions());
}

/** Every change to a user shows in every list (counts, filters) and in their sessions. */
function useInvalidateUsers() {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: userKeys.all });
}

/** A change to a user's units also changes the units' member counts in the Agencies tab. */
function useInvalidateUsersAndUnits() {
  const queryClient = useQueryClient();
  return () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: userKeys.all }),
      queryClient.invalidateQueries({ queryKey: agencyAdminKeys.all }),
    ]);
}

/** Adds a user, then gives them their units when any were chosen. */
export function useCreateUser() {
  const invalidate = useInvalidateUsersAndUnits();
  return useMutation({
    mutationFn: async ({ input, unitIds = [] }: { input: NewUser; unitIds?: number[] }) => {
      const created = await usersApi.create(input);
      if (unitIds.length === 0) return created;
      try {
        await unitsApi.setUserUnits(created.id, unitIds);
      } catch (error) {
        // The account exists now: saying so keeps the admin from adding it a second time.
        const reason = error instanceof Error ? error.message : "unknown error";
        throw new Error(
          `${created.first_name} ${created.last_name} was added, but their units were not saved (${reason}). Close this and edit the user to choose them again.`,
        );
      }
      return created;
    },
    onSettled: invalidate,
  });
}

/** What the edit form changed; absent parts stay as they are. */
export interface UserEdit {
  changes: UserChanges;
  agencyIds?: number[];
  /** The user's units from now on (their agencies are assigned with them). */
  unitIds?: number[];
  maxSessions?: number | null;
}

/**
 * Saves an edit: the user's fields, then agencies, then units (after the agencies, which may have
 * taken some away), then the session limit, each only when changed.
 */
export function useUpdateUser() {
  const invalidate = useInvalidateUsersAndUnits();
  return useMutation({
    mutationFn: async ({ user, edit }: { user: AdminUser; edit: UserEdit }) => {
      if (Object.keys(edit.changes).length > 0) await usersApi.update(user.id, edit.changes);
      if (edit.agencyIds) await usersApi.setAgencies(user.id, edit.agencyIds);
      if (edit.unitIds) await unitsApi.setUserUnits(user.id, edit.unitIds);
      if (edit.maxSessions !== undefined) await usersApi.setSessionLimit(user.id, edit.maxSessions);
    },
    onSettled: invalidate,
  });
}

export function useSetUserActive() {
  const invalidate = useInvalidateUsers();
  return useMutation({
    mutationFn: ({ user, isActive }: { user: AdminUser; isActive: boolean }) =>
      usersApi.setActive(user.id, isActive),
    onSettled: invalidate,
  });
}

export function useDeleteUser() {
  const invalidate = useInvalidateUsers();
  return useMutation({ mutationFn: (user: AdminUser) => usersApi.remove(user.id), onSettled: invalidate });
}

/** Ends one of a user's sessions, or all of them when no session is given. */
export function useTerminateSessions() {
  const invalidate = useInvalidateUsers();
  return useMutation({
    mutationFn: ({ userId, sessionId }: { userId: number; sessionId?: UserSession["id"] }) =>
      usersApi.terminate(userId, sessionId),
    onSettled: invalidate,
  });
}

/** Resets the install banner of the given users, or of everyone when null. */
export function useResetInstallBanner() {
  const invalidate = useInvalidateUsers();
  return useMutation({
    mutationFn: (userIds: number[] | null) => usersApi.resetInstallBanner(userIds),
    onSettled: invalidate,
  });
}
