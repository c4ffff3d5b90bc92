import { queryOptions } from "@tanstack/react-query";
import { agenciesApi } from "./agencies-api";
import { unitsApi } from "./units-api";

/** Query keys of the admin's agencies and capcodes; a change to any capcode invalidates `all`. */
export const agencyAdminKeys = {
  all: ["admin", "agencies"] as const,
  list: () => [...agencyAdminKeys.all, "list"] as const,
  capcodes: (agencyId: number) => [...agencyAdminKeys.all, "capcodes", agencyId] as const,
  units: (agencyId: number) => [...agencyAdminKeys.all, "units", agencyId] as const,
  unmapped: () => [...agencyAdminKeys.all, "unmapped"] as const,
  messages: (capcodeId: number) => [...agencyAdminKeys.all, "messages", capcodeId] as const,
};

/** Every agency, UNMAPPED included, with its counts. */
export function agenciesQueryOptions() {
  return queryOptions({
    queryKey: agencyAdminKeys.list(),
    queryFn: ({ signal }) => agenciesApi.listAgencies(signal),
  });
}

/** One agency's capcodes. */
export function agencyCapcodesQueryOptions(agencyId: number) {
  return queryOptions({
    queryKey: agencyAdminKeys.capcodes(agencyId),
    queryFn: ({ signal }) => agenciesApi.listAgencyCapcodes(agencyId, signal),
  });
}

/** Capcodes no agency has yet, with their message counts. */
export function unmappedCapcodesQueryOptions() {
  return queryOptions({
    queryKey: agencyAdminKeys.unmapped(),
    queryFn: ({ signal }) => agenciesApi.listUnmappedCapcodes(signal),
  });
}

/** A capcode's recent messages, newest first. */
export function capcodeMessagesQueryOptions(capcodeId: number) {
  return queryOptions({
    queryKey: agencyAdminKeys.messages(capcodeId),
    queryFn: ({ signal }) => agenciesApi.listCapcodeMessages(capcodeId, signal),
  });
}

/** One agency's units with their capcodes and member counts (under `all`: a capcode change reloads them). */
export function agencyUnitsQueryOptions(agencyId: number) {
  return queryOptions({
    queryKey: agencyAdminKeys.units(agencyId),
    queryFn: ({ signal }) => unitsApi.listAgencyUnits(agencyId, signal),
  });
}
