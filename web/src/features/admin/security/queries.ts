import { queryOptions, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { securityApi } from "./security-api";

export const securityKeys = {
  all: ["admin", "security"] as const,
  config: () => [...securityKeys.all, "config"] as const,
  stats: () => [...securityKeys.all, "stats"] as const,
  bruteForce: () => [...securityKeys.all, "brute-force"] as const,
  otpAttempts: () => [...securityKeys.all, "otp-attempts"] as const,
  events: () => [...securityKeys.all, "events"] as const,
  actions: () => [...securityKeys.all, "actions"] as const,
  userStatus: (id: number) => [...securityKeys.all, "user-status", id] as const,
  userDevices: (id: number) => [...securityKeys.all, "user-devices", id] as const,
};

export const securityQueries = {
  config: () =>
    queryOptions({ queryKey: securityKeys.config(), queryFn: ({ signal }) => securityApi.config(signal) }),
  stats: () =>
    queryOptions({ queryKey: securityKeys.stats(), queryFn: ({ signal }) => securityApi.stats(signal) }),
  bruteForce: () =>
    queryOptions({
      queryKey: securityKeys.bruteForce(),
      queryFn: ({ signal }) => securityApi.bruteForce(signal),
    }),
  otpAttempts: () =>
    queryOptions({
      queryKey: securityKeys.otpAttempts(),
      queryFn: ({ signal }) => securityApi.otpAttempts(signal),
    }),
  events: () =>
    queryOptions({ queryKey: securityKeys.events(), queryFn: ({ signal }) => securityApi.events(signal) }),
  actions: () =>
    queryOptions({ queryKey: securityKeys.actions(), queryFn: ({ signal }) => securityApi.actions(signal) }),
  userStatus: (id: number) =>
    queryOptions({
      queryKey: securityKeys.userStatus(id),
      queryFn: ({ signal }) => securityApi.userStatus(id, signal),
    }),
  userDevices: (id: number) =>
    queryOptions({
      queryKey: securityKeys.userDevices(id),
      queryFn: ({ signal }) => securityApi.userDevices(id, signal),
    }),
};

/** The user's sign-in status, once an id is chosen. */
export function useUserSecurityStatus(id: number | null) {
  return useQuery({ ...securityQueries.userStatus(id ?? 0), enabled: id !== null });
}

/**
 * Every security action changes what the lists show (and records an admin action), so each one
 * refreshes the whole tab.
 */
function useSecurityMutation<TInput, TResult>(mutationFn: (input: TInput) => Promise<TResult>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn,
    onSettled: () => queryClient.invalidateQueries({ queryKey: securityKeys.all }),
  });
}

/** Change one setting's value (and optionally its description). */
export function useUpdateSecurityConfig() {
  return useSecurityMutation(
    ({ key, value, description }: { key: string; value: number; description?: string }) =>
      securityApi.updateConfig(key, value, description),
  );
}

export function useClearLock() {
  return useSecurityMutation((identifier: string) => securityApi.clearLock(identifier));
}

export function useResetUserOtp() {
  return useSecurityMutation((id: number) => securityApi.resetUserOtp(id));
}

export function useUserDevices(id: number) {
  return useQuery(securityQueries.userDevices(id));
}

/** Revoke one of a user's recognised devices (`deviceId`), or all of them. */
export function useRevokeUserDevices() {
  return useSecurityMutation(({ userId, deviceId }: { userId: number; deviceId?: string }) =>
    securityApi.revokeUserDevices(userId, deviceId),
  );
}

export function useResetPhoneOtp() {
  return useSecurityMutation((phone: string) => securityApi.resetPhoneOtp(phone));
}

export function useSecurityCleanup() {
  return useSecurityMutation(() => securityApi.cleanup());
}
