import { keepPreviousData, queryOptions, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
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

export function useCreateUser() {
  const invalidate = useInvalidateUsers();
  return useMutation({ mutationFn: (input: NewUser) => usersApi.create(input), onSettled: invalidate });
}

/** What the edit form changed; absent parts stay as they are. */
export interface UserEdit {
  changes: UserChanges;
  agencyIds?: number[];
  maxSessions?: number | null;
}

/** Saves an edit: the user's fields, then agencies, then the session limit, each only when changed. */
export function useUpdateUser() {
  const invalidate = useInvalidateUsers();
  return useMutation({
    mutationFn: async ({ user, edit }: { user: AdminUser; edit: UserEdit }) => {
      if (Object.keys(edit.changes).length > 0) await usersApi.update(user.id, edit.changes);
      if (edit.agencyIds) await usersApi.setAgencies(user.id, edit.agencyIds);
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
