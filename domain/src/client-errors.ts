/**
 * An error in a member's or an admin's app, told to the server so that someone learns of it (the
 * system log and the System Monitor) rather than only the person looking at a Reload page.
 */

/** Where the app met the error: a screen failed to render, an uncaught error, a promise nobody handled. */
export const CLIENT_ERROR_KINDS = ["render", "error", "unhandled_rejection"] as const;
export type ClientErrorKind = (typeof CLIENT_ERROR_KINDS)[number];

/** The longest error message kept. */
export const CLIENT_ERROR_MESSAGE_MAX = 500;
/** The longest stack kept (the first frames say where). */
export const CLIENT_ERROR_STACK_MAX = 4_000;
/** The longest page path and release name kept. */
export const CLIENT_ERROR_FIELD_MAX = 200;
/** Reports one page load sends at most: a loop that fails on every frame is one report, not thousands. */
export const CLIENT_ERRORS_PER_PAGE_LOAD = 5;
/** Reports the server takes from one address per minute. */
export const CLIENT_ERROR_REPORTS_PER_MINUTE = 20;

/** What POST /api/client-errors takes (its schema: client-errors-schema.ts). */
export type ClientErrorReport = {
  kind: ClientErrorKind;
  message: string;
  stack?: string;
  /** The page's path, without its query (which can carry a job id or a search). */
  path: string;
  /** Which release of the app: the name of its script. */
  release: string;
};

/** The report of `error` as the server takes it: every field cut to its limit, never empty. */
export function clientErrorReport(
  error: unknown,
  kind: ClientErrorKind,
  where: { path: string; release: string },
): ClientErrorReport {
  const { message, stack } = describe(error);
  return {
    kind,
    message: (message.trim() || "(no message)").slice(0, CLIENT_ERROR_MESSAGE_MAX),
    ...(stack ? { stack: stack.slice(0, CLIENT_ERROR_STACK_MAX) } : {}),
    path: where.path.split(/[?#]/)[0]!.slice(0, CLIENT_ERROR_FIELD_MAX),
    release: where.release.slice(0, CLIENT_ERROR_FIELD_MAX),
  };
}

function describe(error: unknown): { message: string; stack?: string } {
  if (error instanceof Error) {
    const name = error.name && error.name !== "Error" ? `${error.name}: ` : "";
    return { message: `${name}${error.message}`, stack: error.stack };
  }
  if (typeof error === "string") return { message: error };
  try {
    return { message: JSON.stringify(error) ?? String(error) };
  } catch {
    return { message: String(error) };
  }
}
