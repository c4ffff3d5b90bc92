import type { FastifyInstance, FastifyRequest } from "fastify";
import { AppError } from "./errors.js";

/** Body types a route takes besides JSON: multipart uploads, and PagerMon's form posts. */
export type ExtraBodyType = "multipart/form-data" | "application/x-www-form-urlencoded";

declare module "fastify" {
  interface FastifyContextConfig {
    /**
     * Body types this `/api` route accepts besides `application/json` (issue 27: every other route is
     * JSON only, so no web page can post a form to it from a visitor's browser).
     */
    bodyTypes?: readonly ExtraBodyType[];
  }
}

const STATE_CHANGING = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/** The media type of a Content-Type header, lower case, without its parameters. */
export function mediaTypeOf(header: string | undefined): string | null {
  const type = header?.split(";")[0]?.trim().toLowerCase();
  return type ? type : null;
}

function hasBody(request: FastifyRequest): boolean {
  const length = request.headers["content-length"];
  if (length !== undefined) return length !== "0";
  return request.headers["transfer-encoding"] !== undefined;
}

const guarded = (request: FastifyRequest) =>
  STATE_CHANGING.has(request.method) && request.url.startsWith("/api/");

/**
 * Refuses state-changing `/api` requests a web page on another site could make a visitor's browser send:
 * - `Sec-Fetch-Site: cross-site` (browsers set it on every request; other clients do not send it) is a
 *   403 before anything else runs (no sign-in check, no database): no other site may change anything
 *   here, whatever the route;
 * - a body that is not JSON is a 415 once the caller's access is checked (an anonymous caller still
 *   gets its 401 first) and before the body is read, unless the route declares its type in
 *   `config.bodyTypes`: an HTML form or a `fetch` without a CORS preflight can only send forms and
 *   text, never JSON.
 * Hooks for every route, so a route added later is covered without anyone remembering to.
 */
export function registerApiRequestGuard(app: FastifyInstance): void {
  app.addHook("onRequest", async (request) => {
    if (guarded(request) && request.headers["sec-fetch-site"] === "cross-site") {
      throw new AppError(403, "forbidden", "Requests from other websites are refused.");
    }
  });
  app.addHook("preParsing", async (request) => {
    if (!guarded(request)) return;
    const declared = request.headers["content-type"];
    if (declared === undefined && !hasBody(request)) return;
    const type = mediaTypeOf(declared);
    const allowed = request.routeOptions.config?.bodyTypes ?? [];
    if (type === "application/json" || (allowed as readonly string[]).includes(type ?? "")) return;
    throw new AppError(
      415,
      "validation_error",
      allowed.length > 0
        ? `Send the request body as JSON (Content-Type: application/json) or ${allowed.join(" or ")}.`
        : "Send the request body as JSON (Content-Type: application/json).",
    );
  });
}
