import { z } from "zod";

/** The signed-in user as the server presents it (SPEC 3). */
export const sessionUserSchema = z.object({
  id: z.union([z.number(), z.string()]),
  first_name: z.string(),
  last_name: z.string(),
  phone: z.string(),
  is_admin: z.boolean().optional().default(false),
});
export type SessionUser = z.infer<typeof sessionUserSchema>;

/** The user's agency (SPEC 3); a login result may carry none. */
export const sessionAgencySchema = z.object({
  id: z.union([z.number(), z.string()]),
  name: z.string(),
  code: z.string(),
});
export type SessionAgency = z.infer<typeof sessionAgencySchema>;
