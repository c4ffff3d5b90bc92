/** One outgoing text message: `to` is a normalised international phone (+61...). */
export type SmsMessage = { to: string; body: string };

/** Something that hands a text message to a phone network (or, when SMS is disabled, to a file). */
export type SmsProvider = {
  name: string;
  /** Resolves once the provider accepted the message; throws SmsSendError (or any Error) when it did not. */
  send(message: SmsMessage): Promise<{ providerMessageId?: string }>;
};

/**
 * A provider's refusal. `retryable` says whether the same message may succeed later (rate limit,
 * outage) or never will (invalid number, rejected content); `retryAfterSeconds` is the provider's
 * own hint for when to try again. Messages must not contain the phone number or the body.
 */
export class SmsSendError extends Error {
  readonly retryable: boolean;
  readonly retryAfterSeconds?: number;

  constructor(message: string, options: { retryable: boolean; retryAfterSeconds?: number; cause?: unknown }) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "SmsSendError";
    this.retryable = options.retryable;
    if (options.retryAfterSeconds !== undefined) this.retryAfterSeconds = options.retryAfterSeconds;
  }
}
