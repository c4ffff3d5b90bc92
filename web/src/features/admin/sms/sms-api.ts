import { z } from "zod";
import { api } from "../../../api/client";

/** The queue's states (the server's SMS_STATUSES). */
export const SMS_QUEUE_STATUSES = ["pending", "sending", "sent", "failed"] as const;
export type SmsQueueStatus = (typeof SMS_QUEUE_STATUSES)[number];

/** One queued SMS; `body` is null for sign-in and activation codes, which are never shown. */
export const smsQueueItemSchema = z.object({
  id: z.number(),
  to: z.string(),
  kind: z.string(),
  status: z.string(),
  body: z.string().nullable(),
  attempts: z.number(),
  max_attempts: z.number(),
  last_error: z.string().nullish(),
  created_at: z.string(),
  sent_at: z.string().nullish(),
});
export type SmsQueueItem = z.output<typeof smsQueueItemSchema>;

/** SPEC 3 'SMS service metrics'. */
export const smsServiceSchema = z.object({
  status: z.string(),
  is_enabled: z.boolean(),
  sender_address: z.string().nullish(),
  last_api_check: z.string().nullish(),
  api_response_time: z.number().nullish(),
  success_rate: z.number().nullish(),
  total_sent: z.number(),
  pending: z.number().nullish(),
  failed: z.number().nullish(),
});
export type SmsService = z.output<typeof smsServiceSchema>;

interface Envelope {
  success: boolean;
  message?: string;
  data?: unknown;
}

const messageOf = (reply: Envelope) => reply.message ?? "Done.";

export const smsAdminApi = {
  async queue(status: SmsQueueStatus | null, signal?: AbortSignal): Promise<SmsQueueItem[]> {
    const reply = await api.get<Envelope>("/admin/sms/queue", {
      query: { status: status ?? undefined },
      signal,
    });
    return z.array(smsQueueItemSchema).parse(reply.data);
  },

  async service(signal?: AbortSignal): Promise<SmsService> {
    const reply = await api.get<Envelope>("/admin/system/sms", { signal });
    return smsServiceSchema.parse(reply.data);
  },

  async retry(id: number): Promise<string> {
    return messageOf(await api.post<Envelope>(`/admin/sms/retry/${id}`));
  },

  async retryAll(): Promise<string> {
    return messageOf(await api.post<Envelope>("/admin/sms/retry-all"));
  },

  async handleStuck(): Promise<string> {
    return messageOf(await api.post<Envelope>("/admin/sms/handle-stuck"));
  },
};
