import { presentAgency } from "../../shared/present-user.js";
import type { AgencyWithCounts } from "./service.js";

/** An agency in the admin console: SPEC 3 'Agency' (with its logo) plus description and how many capcodes and users it has. */
export function presentAdminAgency(a: AgencyWithCounts) {
  return {
    ...presentAgency(a),
    description: a.description,
    capcode_count: a.capcodeCount,
    user_count: a.userCount,
    created_at: a.createdAt,
    updated_at: a.updatedAt,
  };
}
