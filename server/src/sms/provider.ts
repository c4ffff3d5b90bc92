/**
 * One outgoing text message: `to` is a normalised international phone (+61...). `key` identifies the
 * queue row it comes from (the same for every attempt of that row, see queue.ts smsKey): a provider
 * that can, uses it to recognise a message it has already accepted.
 */
export type SmsMessage = { to: string; body: string; key?: string };

/** Something that hands a text message to a phone network (or, when SMS is disabled, to a file). */
export type SmsProvider = {
  name: string;
  /**
   * Resolves once the provider accepted the message; throws SmsSendError (or any Error) when it did not.
   * A provider that can deduplicate by `key` answers a second send of a key with the first acceptance.
   */
  send(message: SmsMessage): Promise<{ providerMessageId?: string }>;
  /**
   * Asks the provider whether it already accepted the message with this key (sent no earlier than
   * `since`): the queue calls it before sending a row a second time. Resolves to the acceptance, or
   * null when there is none or the provider cannot tell; may throw (the queue then sends). Absent for
   * providers that deduplicate in `send` itself or cannot look anything up.
   */
  findSent?(
    message: SmsMessage & { key: string },
    since: Date,
  ): Promise<{ providerMessageId?: string } | null>;
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
