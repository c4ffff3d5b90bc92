import { queryOptions, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type SmsQueueStatus, smsAdminApi } from "./sms-api";

export const smsAdminKeys = {
  all: ["admin", "sms"] as const,
  queue: (status: SmsQueueStatus | null) => [...smsAdminKeys.all, "queue", status ?? "all"] as const,
  service: () => [...smsAdminKeys.all, "service"] as const,
};

/** While a listed SMS is still on its way, the queue is read again this often, so it shows the outcome. */
export const SMS_QUEUE_IN_FLIGHT_REFRESH_MS = 3_000;

export function smsQueueQueryOptions(status: SmsQueueStatus | null) {
  return queryOptions({
    queryKey: smsAdminKeys.queue(status),
    queryFn: ({ signal }) => smsAdminApi.queue(status, signal),
    refetchInterval: (query) =>
      query.state.data?.some((item) => item.status === "pending" || item.status === "sending")
        ? SMS_QUEUE_IN_FLIGHT_REFRESH_MS
        : false,
  });
}

export function smsServiceQueryOptions() {
  return queryOptions({
    queryKey: smsAdminKeys.service(),
    queryFn: ({ signal }) => smsAdminApi.service(signal),
  });
}

/** The SMS queue, optionally of one status. */
export function useSmsQueue(status: SmsQueueStatus | null) {
  return useQuery(smsQueueQueryOptions(status));
}

/** The SMS provider's state and the queue's totals. */
export function useSmsService() {
  return useQuery(smsServiceQueryOptions());
}

/** Retry one failed SMS (an id), retry all failed ("all") or release stuck ones ("stuck"); then refresh. */
export function useSmsAction() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (action: number | "all" | "stuck") =>
      action === "all"
        ? smsAdminApi.retryAll()
        : action === "stuck"
          ? smsAdminApi.handleStuck()
          : smsAdminApi.retry(action),
    onSettled: () => queryClient.invalidateQueries({ queryKey: smsAdminKeys.all }),
  });
}
