import { isCodeSms } from "../../sms/queue.js";
import type { SmsQueueItem } from "../../sms/queue-admin.js";

/**
 * One SMS queue row on the admin SMS tab: phone already masked. A code SMS shows no body in any state
 * (pending ones still hold their code), whatever the item it is given carries.
 */
export function presentQueueItem(item: SmsQueueItem) {
  return {
    id: item.id,
    to: item.to,
    kind: item.kind,
    status: item.status,
    body: isCodeSms(item.kind) ? null : item.body,
    attempts: item.attempts,
    max_attempts: item.maxAttempts,
    next_attempt_at: item.nextAttemptAt,
    locked_at: item.lockedAt,
    last_error: item.lastError,
    provider_message_id: item.providerMessageId,
    user_id: item.userId,
    created_at: item.createdAt,
    updated_at: item.updatedAt,
    sent_at: item.sentAt,
  };
}
