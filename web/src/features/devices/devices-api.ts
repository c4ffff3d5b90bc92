import { z } from "zod/mini";
import { api } from "../../api/client";

/** A device that has signed in as the member (issue 27): it signs in first while strangers hammer the phone. */
export const recognisedDeviceSchema = z.object({
  id: z.string(),
  device_info: z.string(),
  created_at: z.string(),
  last_used_at: z.string(),
  expires_at: z.string(),
});
export type RecognisedDevice = z.infer<typeof recognisedDeviceSchema>;

export const devicesApi = {
  async list(signal?: AbortSignal): Promise<RecognisedDevice[]> {
    return z
      .object({ data: z.array(recognisedDeviceSchema) })
      .parse(await api.get("/auth/devices", { signal })).data;
  },
  /** Forgets one device: it signs in as a new device next time. */
  async revoke(id: string): Promise<string> {
    const reply = z
      .object({ message: z.optional(z.string()) })
      .parse(await api.delete(`/auth/devices/${encodeURIComponent(id)}`));
    return reply.message ?? "Device removed.";
  },
};
