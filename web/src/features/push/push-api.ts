import { PUSH_AGENCY_MODES, type PushSubscriptionInput } from "@turnout/domain";
import { z } from "zod/mini";
import { api } from "../../api/client";

const configSchema = z.object({ enabled: z.boolean(), public_key: z.string() });

export const pushPreferencesSchema = z.object({
  device_subscribed: z.boolean(),
  agencies: z.array(
    z.object({
      agency_id: z.number(),
      agency_name: z.string(),
      mode: z.enum(PUSH_AGENCY_MODES),
      /** The member's units in the agency (issue 26): with any, "units" is their default. */
      units: z._default(z.array(z.object({ id: z.number(), name: z.string() })), []),
    }),
  ),
});
export type PushPreferences = z.infer<typeof pushPreferencesSchema>;
export type AgencyChoice = Pick<PushPreferences["agencies"][number], "agency_id" | "mode">;

/** The Web Push calls of the server (issue 15). */
export const pushApi = {
  async config(signal?: AbortSignal) {
    return configSchema.parse(await api.get("/push/config", { signal }));
  },
  async preferences(signal?: AbortSignal): Promise<PushPreferences> {
    return pushPreferencesSchema.parse(await api.get("/push/preferences", { signal }));
  },
  async setAgencies(agencies: AgencyChoice[]): Promise<PushPreferences> {
    return pushPreferencesSchema.parse(await api.put("/push/preferences", { agencies }));
  },
  async subscribe(subscription: PushSubscriptionInput): Promise<void> {
    await api.put("/push/subscription", subscription);
  },
  async unsubscribe(): Promise<void> {
    await api.delete("/push/subscription");
  },
  async test(): Promise<void> {
    await api.post("/push/test");
  },
};
