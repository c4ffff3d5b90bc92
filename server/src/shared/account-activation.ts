// Reading the auto-activation switch and the 'account ready' SMS: used by sign-up (auth), auto-activation and users.
import { eq } from "drizzle-orm";
import type { ServiceContext } from "../context.js";
import type { Database } from "../db/client.js";
import { appSettings } from "../db/schema.js";

/** Whether new accounts become active as soon as they are verified (the admin's auto-activation switch). */
export async function isAutoActivationEnabled(db: Database): Promise<boolean> {
  const [row] = await db.select().from(appSettings).where(eq(appSettings.key, "auto_activation"));
  const value = row?.value as { enabled?: unknown } | undefined;
  return value?.enabled !== false;
}

/** The SMS that tells a user their account is active and they can sign in. */
export function accountReadySms(ctx: Pick<ServiceContext, "config">): string {
  const where = ctx.config.publicUrl ? ` at ${ctx.config.publicUrl}` : "";
  return `Turnout: your account is ready. Sign in${where} with your phone number.`;
}
