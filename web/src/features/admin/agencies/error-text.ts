import { isApiError } from "../../../api/errors";

/** What to tell the admin about a failed call: the server's own reason when it gave one. */
export function errorText(error: unknown): string {
  if (isApiError(error)) return error.serverMessage ?? error.message;
  return error instanceof Error ? error.message : "Something went wrong. Please try again.";
}
