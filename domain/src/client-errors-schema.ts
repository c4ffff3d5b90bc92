import { z } from "zod/mini";
import {
  CLIENT_ERROR_FIELD_MAX,
  CLIENT_ERROR_KINDS,
  CLIENT_ERROR_MESSAGE_MAX,
  CLIENT_ERROR_STACK_MAX,
  type ClientErrorReport,
} from "./client-errors.js";

// Apart from client-errors.ts, which every page of the app loads (its error reporter): building a
// schema at load would bring zod into the first paint of the login screen.

/** A report of POST /api/client-errors (clientErrorReport builds one that passes). */
export const clientErrorReportSchema: z.ZodMiniType<ClientErrorReport> = z.object({
  kind: z.enum(CLIENT_ERROR_KINDS),
  message: z.string().check(z.minLength(1), z.maxLength(CLIENT_ERROR_MESSAGE_MAX)),
  stack: z.optional(z.string().check(z.maxLength(CLIENT_ERROR_STACK_MAX))),
  /** The page's path, without its query (which can carry a job id or a search). */
  path: z.string().check(z.maxLength(CLIENT_ERROR_FIELD_MAX)),
  /** Which release of the app: the name of its script. */
  release: z.string().check(z.maxLength(CLIENT_ERROR_FIELD_MAX)),
});
