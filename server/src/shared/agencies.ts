// An agency by id (404 otherwise): read by agencies and capcodes.
import { eq } from "drizzle-orm";
import type { Database } from "../db/client.js";
import { agencies } from "../db/schema.js";
import { notFound } from "../errors.js";

/** The agency with that id. Throws 404 'Agency not found'. */
export async function requireAgency(db: Database, id: number): Promise<typeof agencies.$inferSelect> {
  const [agency] = await db.select().from(agencies).where(eq(agencies.id, id));
  if (!agency) throw notFound("Agency not found");
  return agency;
}
