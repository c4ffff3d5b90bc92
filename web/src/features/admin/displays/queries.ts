import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type DisplayInput, displaysApi } from "./displays-api";

export const displayKeys = {
  all: ["admin", "displays"] as const,
  units: ["admin", "displays", "units"] as const,
};

/** How often the tab reads the displays again while open: a screen's last-seen time moves. */
export const DISPLAYS_REFRESH_MS = 30_000;

export function useDisplays() {
  return useQuery({
    queryKey: displayKeys.all,
    queryFn: ({ signal }) => displaysApi.list(signal),
    refetchInterval: DISPLAYS_REFRESH_MS,
  });
}

export function useDisplayUnits() {
  return useQuery({ queryKey: displayKeys.units, queryFn: ({ signal }) => displaysApi.units(signal) });
}

function useRefreshing<A, R>(fn: (args: A) => Promise<R>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: fn,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: displayKeys.all, exact: true }),
  });
}

export const useCreateDisplay = () => useRefreshing((input: DisplayInput) => displaysApi.create(input));
export const usePairDisplay = () =>
  useRefreshing(({ id, code }: { id: number; code: string }) => displaysApi.pair(id, code));
export const useUnpairDisplay = () => useRefreshing((id: number) => displaysApi.unpair(id));
export const useRemoveDisplay = () => useRefreshing((id: number) => displaysApi.remove(id));
