import { eq } from "drizzle-orm";
import type { Database } from "../../db/client.js";
import { smsQueue } from "../../db/schema.js";
import { conflict, notFound } from "../../errors.js";
import { isCodeSms } from "../../sms/queue.js";
import { retrySms } from "../../sms/queue-admin.js";

/**
 * Puts one failed SMS back in the queue. Throws 404 for an unknown id, 409 when it has not failed or
 * carries a sign-in or activation code (its code is gone; the user requests a new one).
 */
export async function retryOneSms(db: Database, id: number): Promise<void> {
  if (await retrySms(db, id)) return;
  const [row] = await db
    .select({ status: smsQueue.status, kind: smsQueue.kind })
    .from(smsQueue)
    .where(eq(smsQueue.id, id));
  if (!row) throw notFound("SMS not found.");
  if (isCodeSms(row.kind)) {
    throw conflict("Sign-in and activation codes are never sent again; the user can request a new code.");
  }
  throw conflict(`Only failed SMS can be retried; this one is ${row.status}.`);
}
