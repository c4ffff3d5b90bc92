/** Error types the client itself assigns when the server gave none (SPEC 8). */
export const CLIENT_ERROR_TYPES = {
  network: "network_error",
  api: "api_error",
} as const;

/** Every failed call surfaces as this: the HTTP status (0 when no response), type, text and any retry-after. */
export class ApiError extends Error {
  override readonly name = "ApiError";
  readonly status: number;
  readonly errorType: string;
  /** Seconds to wait, from the Retry-After header or the body's retryAfter (429 only). */
  readonly retryAfter: number | undefined;
  /** The body's own message or error text; undefined when the server gave none. */
  readonly serverMessage: string | undefined;
  /** The parsed JSON body, when the server sent one. */
  readonly body: Record<string, unknown> | undefined;

  constructor(init: {
    status: number;
    errorType: string;
    message: string;
    retryAfter?: number | undefined;
    serverMessage?: string | undefined;
    body?: Record<string, unknown> | undefined;
  }) {
    super(init.message);
    this.status = init.status;
    this.errorType = init.errorType;
    this.retryAfter = init.retryAfter;
    this.serverMessage = init.serverMessage;
    this.body = init.body;
  }
}

/** True when the value is an ApiError (narrowing helper for catch blocks). */
export function isApiError(value: unknown): value is ApiError {
  return value instanceof ApiError;
}
