import type { FeedView } from "@turnout/domain";
import { z } from "zod/mini";
import { alertSchema } from "../../api/alerts";
import { api } from "../../api/client";

export const positionSchema = z.object({
  latitude: z.number(),
  longitude: z.number(),
  precision: z.enum(["coordinates", "street", "intersection", "suburb"]),
});
export type JobPosition = z.infer<typeof positionSchema>;

/** A job on the map: its newest page, how many pages, and where it is (GET /api/map/jobs). */
export const mapJobSchema = z.object({ alert: alertSchema, pages: z.number(), position: positionSchema });
export type MapJob = z.infer<typeof mapJobSchema>;

const mapJobsSchema = z.object({
  since: z.string(),
  hours: z.number(),
  truncated: z.boolean(),
  jobs: z.array(mapJobSchema),
  unplaced: z.array(z.number()),
});
export type MapJobs = z.infer<typeof mapJobsSchema>;

const mapSettingsSchema = z.object({ tile_url: z.string(), attribution: z.string(), hours: z.number() });
export type MapSettings = z.infer<typeof mapSettingsSchema>;

export const mapKeys = {
  all: ["map"] as const,
  settings: () => [...mapKeys.all, "settings"] as const,
  jobs: (hours: number | null, view: FeedView) => [...mapKeys.all, "jobs", hours, view] as const,
};

export const mapApi = {
  settings: async (): Promise<MapSettings> =>
    mapSettingsSchema.parse((await api.get<{ data: unknown }>("/map/settings")).data),
  jobs: async (hours: number | null, view: FeedView): Promise<MapJobs> =>
    mapJobsSchema.parse(
      (await api.get<{ data: unknown }>("/map/jobs", { query: { hours: hours ?? undefined, view } })).data,
    ),
};

/** How a precision reads under a job ("Placed at the suburb"). */
export const PRECISION_LABELS: Record<JobPosition["precision"], string> = {
  coordinates: "Placed by the page's coordinates",
  street: "Placed at the street address",
  intersection: "Placed at the intersection",
  suburb: "Placed at the suburb (approximate)",
};
