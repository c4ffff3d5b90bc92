import { z } from "zod/mini";
import { api } from "../../../api/client";

export const displaySchema = z.object({
  id: z.number(),
  unit_id: z.number(),
  unit_name: z.nullable(z.string()),
  name: z.string(),
  idle_minutes: z.number(),
  paired: z.boolean(),
  paired_at: z.nullable(z.string()),
  last_seen_at: z.nullable(z.string()),
});
export type Display = z.output<typeof displaySchema>;

export const displayUnitSchema = z.object({ id: z.number(), name: z.string(), agency_name: z.string() });
export type DisplayUnit = z.output<typeof displayUnitSchema>;

/** The server's limits (it answers 400 beyond them). */
export const DISPLAY_NAME_MAX = 80;
export const IDLE_MINUTES_MAX = 1440;
export const IDLE_MINUTES_DEFAULT = 30;

export interface DisplayInput {
  unit_id: number;
  name: string;
  idle_minutes: number;
}

interface Envelope {
  success: boolean;
  data?: unknown;
}

/** Station displays (issue 34): the admin's calls. */
export const displaysApi = {
  async list(signal?: AbortSignal): Promise<Display[]> {
    return z.array(displaySchema).parse((await api.get<Envelope>("/admin/displays", { signal })).data);
  },
  async units(signal?: AbortSignal): Promise<DisplayUnit[]> {
    return z
      .array(displayUnitSchema)
      .parse((await api.get<Envelope>("/admin/displays/units", { signal })).data);
  },
  async create(input: DisplayInput): Promise<Display> {
    return displaySchema.parse((await api.post<Envelope>("/admin/displays", input)).data);
  },
  async pair(id: number, code: string): Promise<Display> {
    return displaySchema.parse((await api.post<Envelope>(`/admin/displays/${id}/pair`, { code })).data);
  },
  async unpair(id: number): Promise<void> {
    await api.post<Envelope>(`/admin/displays/${id}/unpair`);
  },
  async remove(id: number): Promise<void> {
    await api.delete<Envelope>(`/admin/displays/${id}`);
  },
};
