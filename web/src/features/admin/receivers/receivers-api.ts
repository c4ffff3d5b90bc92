import { RECEIVER_STATES } from "@turnout/domain";
import { z } from "zod/mini";
import { api } from "../../../api/client";

export const receiverKeySchema = z.object({
  id: z.number(),
  key_prefix: z.string(),
  created_at: z.string(),
  last_used_at: z.nullable(z.string()),
  expires_at: z.nullable(z.string()),
  revoked_at: z.nullable(z.string()),
  valid: z.boolean(),
});
export type ReceiverKey = z.output<typeof receiverKeySchema>;

export const receiverSchema = z.object({
  id: z.number(),
  name: z.string(),
  location: z.nullable(z.string()),
  kind: z.enum(["receiver", "legacy"]),
  expected_capcodes: z.array(z.string()),
  expected_agency_ids: z.array(z.number()),
  /** Its own agencies and those of its expected capcodes: whom its silence matters to. */
  agency_ids: z.array(z.number()),
  heartbeat_interval_seconds: z.number(),
  down_after_seconds: z.number(),
  quiet_after_seconds: z.nullable(z.number()),
  learned_quiet_seconds: z.nullable(z.number()),
  state: z.enum(RECEIVER_STATES),
  state_since: z.string(),
  current_state: z.enum(RECEIVER_STATES),
  last_seen_at: z.nullable(z.string()),
  last_heartbeat_at: z.nullable(z.string()),
  last_message_at: z.nullable(z.string()),
  spool_depth: z.nullable(z.number()),
  dead_letters: z.nullable(z.number()),
  decoder: z.nullable(z.string()),
  uptime_seconds: z.nullable(z.number()),
  version: z.nullable(z.string()),
  pages_per_hour: z.array(z.number()),
  keys: z.array(receiverKeySchema),
});
export type Receiver = z.output<typeof receiverSchema>;

/** A key as issued: the key itself is in this reply only. */
export const issuedKeySchema = z.extend(receiverKeySchema, { key: z.string() });
export type IssuedKey = z.output<typeof issuedKeySchema>;

/** A receiver that heard an alert (admins only): when first and last, and how many copies. */
export const alertReceiverSchema = z.object({
  receiver_id: z.number(),
  name: z.string(),
  kind: z.enum(["receiver", "legacy"]),
  first_heard_at: z.string(),
  last_heard_at: z.string(),
  messages: z.number(),
  deleted: z.boolean(),
});
export type AlertReceiver = z.output<typeof alertReceiverSchema>;

/** What the register and edit forms send (PATCH sends only the fields that changed). */
export interface ReceiverInput {
  name: string;
  location: string | null;
  expected_capcodes: string[];
  expected_agency_ids: number[];
  heartbeat_interval_seconds: number;
  down_after_seconds: number;
  quiet_after_seconds: number | null;
}

interface Envelope {
  success: boolean;
  data?: unknown;
}

export const receiversApi = {
  async list(signal?: AbortSignal): Promise<Receiver[]> {
    return z.array(receiverSchema).parse((await api.get<Envelope>("/admin/receivers", { signal })).data);
  },

  async create(input: ReceiverInput): Promise<{ id: number; key: IssuedKey }> {
    const reply = await api.post<Envelope>("/admin/receivers", input);
    return z.object({ id: z.number(), key: issuedKeySchema }).parse(reply.data);
  },

  async update(id: number, input: Partial<ReceiverInput>): Promise<void> {
    await api.patch<Envelope>(`/admin/receivers/${id}`, input);
  },

  async remove(id: number): Promise<void> {
    await api.delete<Envelope>(`/admin/receivers/${id}`);
  },

  async newKey(id: number, graceHours: number): Promise<IssuedKey> {
    const reply = await api.post<Envelope>(`/admin/receivers/${id}/keys`, { grace_hours: graceHours });
    return issuedKeySchema.parse(reply.data);
  },

  async revokeKey(id: number, keyId: number): Promise<void> {
    await api.delete<Envelope>(`/admin/receivers/${id}/keys/${keyId}`);
  },

  async heardBy(alertId: number, signal?: AbortSignal): Promise<AlertReceiver[]> {
    const reply = await api.get<Envelope>(`/admin/alerts/${alertId}/receivers`, { signal });
    return z.array(alertReceiverSchema).parse(reply.data);
  },
};
