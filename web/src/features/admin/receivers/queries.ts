import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type ReceiverInput, receiversApi } from "./receivers-api";

export const receiverKeys = { all: ["admin", "receivers"] as const };

/** How often the tab reads the receivers again while open: states change as time passes. */
export const RECEIVERS_REFRESH_MS = 5_000;

/** Every receiver, read again every few seconds while the tab is open (so states show live). */
export function useReceivers() {
  return useQuery({
    queryKey: receiverKeys.all,
    queryFn: ({ signal }) => receiversApi.list(signal),
    refetchInterval: RECEIVERS_REFRESH_MS,
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
export const useDeleteReceiver = () => useRefreshing((id: number) => receiversApi.remove(id));
export const useNewReceiverKey = () =>
  useRefreshing(({ id, graceHours }: { id: number; graceHours: number }) =>
    receiversApi.newKey(id, graceHours),
  );
export const useRevokeReceiverKey = () =>
  useRefreshing(({ id, keyId }: { id: number; keyId: number }) => receiversApi.revokeKey(id, keyId));
