import { queryOptions, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type GroupingSettingKey, groupingApi, type PatternInput } from "./grouping-api";

export const groupingKeys = {
  all: ["admin", "message-grouping"] as const,
  config: () => [...groupingKeys.all, "config"] as const,
  patterns: () => [...groupingKeys.all, "patterns"] as const,
  settings: () => [...groupingKeys.all, "settings"] as const,
};

export function groupingPatternsQueryOptions() {
  return queryOptions({
    queryKey: groupingKeys.patterns(),
    queryFn: ({ signal }) => groupingApi.patterns(signal),
  });
}

export function groupingSettingsQueryOptions() {
  return queryOptions({
    queryKey: groupingKeys.settings(),
    queryFn: ({ signal }) => groupingApi.settings(signal),
  });
}

export function groupingConfigQueryOptions() {
  // The built-in rules are fixed in code; once per console visit is enough.
  return queryOptions({
    queryKey: groupingKeys.config(),
    queryFn: ({ signal }) => groupingApi.config(signal),
    staleTime: Number.POSITIVE_INFINITY,
  });
}

/** The admin's job-number patterns, in the order they are tried. */
export function useGroupingPatterns() {
  return useQuery(groupingPatternsQueryOptions());
}

/** Grouping on/off and its two windows. */
export function useGroupingSettings() {
  return useQuery(groupingSettingsQueryOptions());
}

/** The built-in patterns and what is never grouped. */
export function useGroupingConfig() {
  return useQuery(groupingConfigQueryOptions());
}

/** Create (no id) or change a pattern (some fields), then refresh the list. */
export function useSavePattern() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, input }: { id: number | null; input: Partial<PatternInput> }) =>
      id === null ? groupingApi.createPattern(input as PatternInput) : groupingApi.updatePattern(id, input),
    onSettled: () => queryClient.invalidateQueries({ queryKey: groupingKeys.patterns() }),
  });
}

/** Delete a pattern, then refresh the list. */
export function useDeletePattern() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => groupingApi.deletePattern(id),
    onSettled: () => queryClient.invalidateQueries({ queryKey: groupingKeys.patterns() }),
  });
}

/** Store one setting; the server answers the settings in force, which replace the cached ones. */
export function useUpdateGroupingSetting() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ key, value }: { key: GroupingSettingKey; value: boolean | number }) =>
      groupingApi.updateSetting(key, value),
    onSuccess: (settings) => queryClient.setQueryData(groupingKeys.settings(), settings),
    onError: () => queryClient.invalidateQueries({ queryKey: groupingKeys.settings() }),
  });
}

/** Run the extraction on a test message; nothing is cached. */
export function useTestExtraction() {
  return useMutation({ mutationFn: (message: string) => groupingApi.testExtraction(message) });
}
