import { queryOptions, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type AgencyChoice, type PushPreferences, pushApi } from "./push-api";
import { currentSubscription, subscribeDevice, subscriptionInput, unsubscribeDevice } from "./push-device";

export const pushKeys = {
  all: ["push"] as const,
  preferences: () => [...pushKeys.all, "preferences"] as const,
};

export function pushPreferencesQueryOptions() {
  return queryOptions({
    queryKey: pushKeys.preferences(),
    queryFn: ({ signal }) => pushApi.preferences(signal),
  });
}

export function usePushPreferences(enabled: boolean) {
  return useQuery({ ...pushPreferencesQueryOptions(), enabled });
}

/** Turns push on for this device (permission, subscription, server) or off. */
export function useDevicePush() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (on: boolean) => {
      if (on) {
        const { public_key } = await pushApi.config();
        await pushApi.subscribe(subscriptionInput(await subscribeDevice(public_key)));
      } else {
        // The server forgets the device first: a failure to unsubscribe locally then sends nothing.
        await pushApi.unsubscribe();
        await unsubscribeDevice();
      }
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: pushKeys.preferences() }),
  });
}

export function useSetAgencyChoice() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (choice: AgencyChoice) => pushApi.setAgencies([choice]),
    onSuccess: (prefs: PushPreferences) => queryClient.setQueryData(pushKeys.preferences(), prefs),
  });
}

export function useTestPush() {
  return useMutation({ mutationFn: () => pushApi.test() });
}

/**
 * Keeps the server's record of this device's subscription current: at start, when permission was given
 * and the browser holds a subscription (it may have been renewed while the app was closed), it is sent
 * again; the server replaces the old one. Nothing is asked of the member.
 */
export async function resyncDeviceSubscription(): Promise<void> {
  if (!("Notification" in window) || Notification.permission !== "granted") return;
  const subscription = await currentSubscription();
  if (subscription) await pushApi.subscribe(subscriptionInput(subscription));
}
