import { queryOptions } from "@tanstack/react-query";
import { z } from "zod/mini";
import { api } from "../../api/client";

const named = z.object({
  id: z.pipe(z.union([z.number(), z.string()]), z.transform(String)),
  name: z.string(),
});

/**
 * What the alarm settings list choices for: the member's units (GET /auth/profile `user.units`, once
 * units exist) and agencies. A server without units sends none: the member chooses per agency.
 */
const profileSchema = z.object({
  user: z.object({ units: z.nullish(z.array(z.extend(named, { agency_id: z.optional(z.unknown()) }))) }),
  agencies: z.nullish(z.array(named)),
});

export interface AlarmTargets {
  units: Array<{ id: string; name: string }>;
  agencies: Array<{ id: string; name: string }>;
}

export const alarmApi = {
  async targets(signal?: AbortSignal): Promise<AlarmTargets> {
    const reply = profileSchema.parse(await api.get("/auth/profile", { signal }));
    return {
      units: (reply.user.units ?? []).map(({ id, name }) => ({ id, name })),
      agencies: reply.agencies ?? [],
    };
  },
};

/** The units and agencies the member can choose a non-emergency sound for. */
export function alarmTargetsQueryOptions() {
  return queryOptions({
    queryKey: ["alarm", "targets"] as const,
    queryFn: ({ signal }) => alarmApi.targets(signal),
    staleTime: 5 * 60_000,
  });
}
