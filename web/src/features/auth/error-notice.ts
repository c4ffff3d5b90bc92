import { CLIENT_ERROR_TYPES, isApiError } from "../../api/errors";
import type { ErrorNotice } from "../../ui/error-alert";

/**
 * What a failed sign-in, registration or activation call shows: whenever the server answered with a
 * message, that message and its error type (a deactivated account, one awaiting review, a service
 * that is down: the server knows why; issue 26), else `fallback`, the spec's text, typed
 * network_error when no answer came at all.
 */
export function authErrorNotice(caught: unknown, fallback: string): ErrorNotice {
  if (!isApiError(caught) || caught.status === 0) {
    return { message: fallback, errorType: CLIENT_ERROR_TYPES.network };
  }
  return { message: caught.serverMessage || fallback, errorType: caught.errorType };
}
