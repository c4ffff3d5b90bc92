import { queryOptions, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { RuleStatus } from "@turnout/domain";
import { useEffect } from "react";
import { subscribeLiveEvents } from "../../../api/live-events";
import { pendingCountFrom, type ReviewRule, type RuleDecision, userAlertsAdminApi } from "./user-alerts-api";

/** The badges refresh once a minute besides the live event, in case an event was missed offline. */
const PENDING_REFRESH_MS = 60_000;

export const userAlertsAdminKeys = {
  all: ["admin", "user-alerts"] as const,
  list: (status: RuleStatus | null) => [...userAlertsAdminKeys.all, "list", status ?? "all"] as const,
  pendingCount: () => [...userAlertsAdminKeys.all, "pending-count"] as const,
  // Outside `all`: a decision does not change what a rule matches, and refetching after each one would
  // rerun every opened count. An edit by the owner changes updated_at, hence the key.
  matches: (id: number, updatedAt: string | null | undefined) =>
    ["admin", "user-alert-matches", id, updatedAt ?? ""] as const,
};

export function reviewRulesQueryOptions(status: RuleStatus | null) {
  return queryOptions({
    queryKey: userAlertsAdminKeys.list(status),
    queryFn: ({ signal }) => userAlertsAdminApi.list(status, signal),
  });
}

export function pendingRuleCountQueryOptions() {
  return queryOptions({
    queryKey: userAlertsAdminKeys.pendingCount(),
    queryFn: ({ signal }) => userAlertsAdminApi.pendingCount(signal),
    refetchInterval: PENDING_REFRESH_MS,
  });
}

/** The rules to review, pending first. */
export function useReviewRules(status: RuleStatus | null) {
  return useQuery(reviewRulesQueryOptions(status));
}

/**
 * How many rules wait for review (the User Alerts badge), 0 until known. Follows the admin channel's
 * `user-alerts:pending` event, so a member's new or edited rule shows at once; the review list is
 * refreshed with it. Once the page is in the admins' room again after a drop (when such news may have
 * been missed), both are read again.
 */
export function usePendingRuleCount(enabled = true): number {
  const queryClient = useQueryClient();
  const { data } = useQuery({ ...pendingRuleCountQueryOptions(), enabled });
  useEffect(() => {
    if (!enabled) return;
    return subscribeLiveEvents(["user-alerts:pending", "joined-admin"], (event, payload) => {
      if (event === "joined-admin") {
        void queryClient.invalidateQueries({ queryKey: userAlertsAdminKeys.pendingCount() });
      } else {
        const pending = pendingCountFrom(payload);
        if (pending === null) return;
        queryClient.setQueryData(userAlertsAdminKeys.pendingCount(), pending);
      }
      void queryClient.invalidateQueries({ queryKey: [...userAlertsAdminKeys.all, "list"] });
    });
  }, [queryClient, enabled]);
  return data ?? 0;
}

/**
 * What one rule would have matched in the last 3 months. Used only once the admin presses 'Check
 * matches': each answer is a count over the alerts, so the list never asks for all of them.
 */
export function useRuleMatches(rule: ReviewRule) {
  return useQuery({
    queryKey: userAlertsAdminKeys.matches(rule.id, rule.updated_at),
    queryFn: ({ signal }) => userAlertsAdminApi.matches(rule.id, signal),
  });
}

/** Approve, reject (with a reason) or suspend a rule, then refresh the list and the badge. */
export function useDecideRule() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, decision, reason }: { id: number; decision: RuleDecision; reason?: string }) =>
      userAlertsAdminApi.decide(id, decision, reason),
    onSettled: () => queryClient.invalidateQueries({ queryKey: userAlertsAdminKeys.all }),
  });
}
