import { queryOptions, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect } from "react";
import { subscribeLiveEvents } from "../../../api/live-events";
import { type ReceiverInput, receiversApi } from "./receivers-api";

export const receiverKeys = {
  all: ["admin", "receivers"] as const,
  list: () => [...receiverKeys.all, "list"] as const,
  heardBy: (alertId: number) => [...receiverKeys.all, "heard-by", alertId] as const,
};

/**
 * How often the open tab reads the receivers anyway: the live channel's `receivers:changed` brings
 * each change of state at once; this keeps the heartbeat and page times, spool depths and sparklines
 * current, and covers a live channel that is down.
 */
export const RECEIVERS_REFRESH_MS = 30_000;

export function receiversQueryOptions() {
  return queryOptions({
    queryKey: receiverKeys.list(),
    queryFn: ({ signal }) => receiversApi.list(signal),
    refetchInterval: RECEIVERS_REFRESH_MS,
  });
}

/**
 * Every receiver, read again when the admin channel says a receiver's state changed (or the page is
 * in the admins' room again after a drop, when such news may have been missed), and every
 * RECEIVERS_REFRESH_MS.
 */
export function useReceivers() {
  const queryClient = useQueryClient();
  useEffect(
    () =>
      subscribeLiveEvents(["receivers:changed", "joined-admin"], () => {
        void queryClient.invalidateQueries({ queryKey: receiverKeys.list() });
      }),
    [queryClient],
  );
  return useQuery(receiversQueryOptions());
}

/** Which receivers heard an alert (the admin's job view). */
export function useAlertReceivers(alertId: number) {
  return useQuery({
    queryKey: receiverKeys.heardBy(alertId),
    queryFn: ({ signal }) => receiversApi.heardBy(alertId, signal),
  });
}

function useRefreshing<A, R>(fn: (args: A) => Promise<R>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: fn,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: receiverKeys.all }),
  });
}

export const useCreateReceiver = () => useRefreshing((input: ReceiverInput) => receiversApi.create(input));
export const useUpdateReceiver = () =>
  useRefreshing(({ id, changes }: { id: number; changes: Partial<ReceiverInput> }) =>
    receiversApi.update(id, changes),
  );
export const useDeleteReceiver = () => useRefreshing((id: number) => receiversApi.remove(id));
export const useNewReceiverKey = () =>
  useRefreshing(({ id, graceHours }: { id: number; graceHours: number }) =>
    receiversApi.newKey(id, graceHours),
  );
export const useRevokeReceiverKey = () =>
  useRefreshing(({ id, keyId }: { id: number; keyId: number }) => receiversApi.revokeKey(id, keyId));
