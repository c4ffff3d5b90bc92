import { queryOptions, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { AlertRuleInput, AlertRulePreview } from "@turnout/domain";
import { type AlertRule, rulesApi } from "./rules-api";

export const ruleKeys = {
  all: ["user-alerts"] as const,
  list: () => [...ruleKeys.all, "list"] as const,
  agencies: () => [...ruleKeys.all, "agencies"] as const,
};

export function rulesQueryOptions() {
  return queryOptions({ queryKey: ruleKeys.list(), queryFn: rulesApi.list });
}

export function ruleAgenciesQueryOptions() {
  // The agencies a user may watch change rarely; no need to ask again while the dialog is open.
  return queryOptions({ queryKey: ruleKeys.agencies(), queryFn: rulesApi.agencies, staleTime: 5 * 60_000 });
}

/** The signed-in user's alert rules. */
export function useRules() {
  return useQuery(rulesQueryOptions());
}

/** The agencies a rule can be limited to. */
export function useRuleAgencies() {
  return useQuery(ruleAgenciesQueryOptions());
}

/** What a draft rule would have matched; nothing is cached, every preview asks afresh. */
export function usePreviewRule() {
  return useMutation({ mutationFn: (input: AlertRulePreview) => rulesApi.preview(input) });
}

/** Create (no id) or update a rule, then refresh the list. */
export function useSaveRule() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, input }: { id: number | null; input: AlertRuleInput }) =>
      id === null ? rulesApi.create(input) : rulesApi.update(id, input),
    onSettled: () => queryClient.invalidateQueries({ queryKey: ruleKeys.list() }),
  });
}

/** Delete a rule; the list refreshes whether or not the server agreed (a failure is silent, SPEC 8). */
export function useDeleteRule() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => rulesApi.remove(id),
    onSettled: () => queryClient.invalidateQueries({ queryKey: ruleKeys.list() }),
  });
}

/** Switch an approved rule on or off; the answer replaces the rule in the list. */
export function useToggleRule() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => rulesApi.toggle(id),
    onSuccess: (rule) => {
      queryClient.setQueryData<AlertRule[]>(ruleKeys.list(), (rules) =>
        rules?.map((existing) => (existing.id === rule.id ? rule : existing)),
      );
    },
    onError: () => queryClient.invalidateQueries({ queryKey: ruleKeys.list() }),
  });
}
