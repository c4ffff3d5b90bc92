import { z } from "zod/mini";
import { api } from "../../../api/client";
import { orElse, orEmpty } from "../../../api/schema-helpers";

/** An admin's job-number pattern; lower priority numbers are tried first. */
export const groupingPatternSchema = z.object({
  id: z.number(),
  name: z.string(),
  pattern: z.string(),
  description: orElse(z.string(), ""),
  priority: z.number(),
  is_active: z.boolean(),
});
export type GroupingPattern = z.output<typeof groupingPatternSchema>;

/** What an admin enters for a pattern (POST, or PUT with some fields). */
export interface PatternInput {
  name: string;
  pattern: string;
  description: string | null;
  priority: number;
  is_active: boolean;
}

export const groupingSettingsSchema = z.object({
  grouping_enabled: z.boolean(),
  group_window_hours: z.number(),
  duplicate_window_seconds: z.number(),
});
export type GroupingSettings = z.output<typeof groupingSettingsSchema>;
export type GroupingSettingKey = keyof GroupingSettings;

export const groupingConfigSchema = z.object({
  built_in_patterns: orEmpty(z.array(z.string())),
  never_grouped: orEmpty(z.array(z.string())),
});
export type GroupingConfig = z.output<typeof groupingConfigSchema>;

/** What the server read from a test message: the job number and what found it ("built-in" or a pattern's name). */
export const extractionSchema = z.object({
  job_number: z.nullable(z.string()),
  matched_by: z.nullable(z.string()),
  type: z.string(),
  display_text: z.string(),
});
export type Extraction = z.output<typeof extractionSchema>;

interface Envelope {
  success: boolean;
  data?: unknown;
}

export const groupingApi = {
  async config(signal?: AbortSignal): Promise<GroupingConfig> {
    return groupingConfigSchema.parse((await api.get<Envelope>("/message-grouping/config", { signal })).data);
  },

  async patterns(signal?: AbortSignal): Promise<GroupingPattern[]> {
    const reply = await api.get<Envelope>("/message-grouping/patterns", { signal });
    return z.array(groupingPatternSchema).parse(reply.data);
  },

  async createPattern(input: PatternInput): Promise<GroupingPattern> {
    return groupingPatternSchema.parse((await api.post<Envelope>("/message-grouping/patterns", input)).data);
  },

  async updatePattern(id: number, input: Partial<PatternInput>): Promise<GroupingPattern> {
    const reply = await api.put<Envelope>(`/message-grouping/patterns/${id}`, input);
    return groupingPatternSchema.parse(reply.data);
  },

  async deletePattern(id: number): Promise<void> {
    await api.delete(`/message-grouping/patterns/${id}`);
  },

  async settings(signal?: AbortSignal): Promise<GroupingSettings> {
    return groupingSettingsSchema.parse(
      (await api.get<Envelope>("/message-grouping/settings", { signal })).data,
    );
  },

  async updateSetting(key: GroupingSettingKey, value: boolean | number): Promise<GroupingSettings> {
    const reply = await api.put<Envelope>(`/message-grouping/settings/${key}`, { value });
    return groupingSettingsSchema.parse(reply.data);
  },

  async testExtraction(message: string): Promise<Extraction> {
    const reply = await api.post<Envelope>("/message-grouping/test-extraction", { message });
    return extractionSchema.parse(reply.data);
  },
};
