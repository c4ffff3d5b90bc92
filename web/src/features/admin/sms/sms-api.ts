import { z } from "zod/mini";
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
  body: z.nullable(z.string()),
  attempts: z.number(),
  max_attempts: z.number(),
  last_error: z.nullish(z.string()),
  created_at: z.string(),
  sent_at: z.nullish(z.string()),
});
export type SmsQueueItem = z.output<typeof smsQueueItemSchema>;

/** SPEC 3 'SMS service metrics'. */
export const smsServiceSchema = z.object({
  status: z.string(),
  is_enabled: z.boolean(),
  sender_address: z.nullish(z.string()),
  last_api_check: z.nullish(z.string()),
  api_response_time: z.nullish(z.number()),
  success_rate: z.nullish(z.number()),
  total_sent: z.number(),
  pending: z.nullish(z.number()),
  failed: z.nullish(z.number()),
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
