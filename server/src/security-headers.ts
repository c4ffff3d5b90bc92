import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import path from "node:path";
import type { FastifyInstance } from "fastify";
import helmet from "helmet";
import { tileSource } from "./config.js";

/**
 * MUI's styles come from emotion, which in a production build creates each `<style>` element empty and
 * fills it through the CSSOM (`insertRule`), which CSP does not police. Allowing exactly the empty
 * element by its hash keeps 'unsafe-inline' out of style-src: injected markup still cannot style the
 * page. (A nonce is no option: index.html is a static file the service worker serves from its cache.)
 */
const EMPTY_STYLE_HASH = sha256Source("");

/** Where the live channel (socket.io, live/gateway.ts) listens. */
const SOCKET_IO_PATH = "/socket.io/";

/** API paths: their answers (tokens, alerts, phone numbers) must never be kept by a browser or proxy. */
const API_PATH = /^\/api(\/|\?|$)/;

/**
 * Security headers on every response through `helmet`: a Content-Security-Policy the built app runs
 * under (no 'unsafe-eval', no inline script, inline code of index.html allowed only by its hash),
 * framing refused, nosniff, no referrer, same-origin opener and resource policies, HSTS only when
 * PUBLIC_URL is https, and `Cache-Control: no-store` on API answers.
 *
 * helmet's middleware is built once here and run on each request's raw response, before any handler.
 * That is what `@fastify/helmet` does, except that it builds the middleware again for every request,
 * behind two async hooks: ~0.1 ms of CPU a request (bench/README.md, ingest "fifth pass").
 */
export async function registerSecurityHeaders(app: FastifyInstance): Promise<void> {
  const inline = inlineHashes(path.join(app.config.webDistDir, "index.html"));
  const https = app.config.publicUrl?.startsWith("https:") ?? false;

  const setHeaders = helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'", ...inline.script],
        scriptSrcAttr: ["'none'"],
        styleSrc: ["'self'", EMPTY_STYLE_HASH, ...inline.style],
        styleSrcAttr: ["'none'"],
        // blob: for the page's own object URLs: the agency logo dialog previews the chosen file so.
        // The map's tiles (issue 34): the configured tile host only.
        imgSrc: ["'self'", "blob:", tileSource(app.config.map.tileUrl)],
        // The API and the live channel (socket.io polls with XHR) are on this origin.
        connectSrc: ["'self'"],
        objectSrc: ["'none'"],
        baseUri: ["'self'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
        // Over plain http (a station's LAN address) an upgrade would break every request.
        ...(https ? { upgradeInsecureRequests: [] } : {}),
      },
    },
    frameguard: { action: "deny" },
    // Directions links carry the incident's address to the map site; the page's URL (a job number)
    // has no business going with them, and nothing on this origin reads Referer.
    referrerPolicy: { policy: "no-referrer" },
    crossOriginOpenerPolicy: { policy: "same-origin" },
    crossOriginResourcePolicy: { policy: "same-origin" },
    // Only a deployment whose public address is https may promise browsers https for a year.
    strictTransportSecurity: https ? { maxAge: 31_536_000, includeSubDomains: true } : false,
  });
  app.addHook("onRequest", (request, reply, done) => setHeaders(request.raw, reply.raw, () => done()));

  // socket.io answers its own requests on the HTTP server, before Fastify and its hooks see them (its
  // handshakes, polls and errors alike): the same headers go on those responses here, set before
  // engine.io writes its own, and never cached (polls carry alerts).
  app.server.prependListener("request", (req: IncomingMessage, res: ServerResponse) => {
    if (!req.url?.startsWith(SOCKET_IO_PATH)) return;
    setHeaders(req, res, () => {});
    res.setHeader("Cache-Control", "no-store");
  });

  // Every /api answer, not only those to a bearer token: sign-in answers carry a new token and come
  // from unauthenticated requests. Uploaded logos set their own long cache and keep it.
  app.addHook("onSend", async (request, reply) => {
    if (API_PATH.test(request.url) && !reply.hasHeader("cache-control")) {
      reply.header("Cache-Control", "no-store");
    }
  });
}

/** CSP hash sources for the inline scripts and styles of the built index.html (none when not built). */
function inlineHashes(indexFile: string): { script: string[]; style: string[] } {
  const found = { script: [] as string[], style: [] as string[] };
  if (!existsSync(indexFile)) return found;
  const html = readFileSync(indexFile, "utf8");
  for (const match of html.matchAll(/<(script|style)\b([^>]*)>([\s\S]*?)<\/\1\s*>/gi)) {
    const [, tag, attributes, body] = match;
    if (tag!.toLowerCase() === "script" && /\bsrc\s*=/i.test(attributes!)) continue;
    found[tag!.toLowerCase() as "script" | "style"].push(sha256Source(body!));
  }
  return found;
}

function sha256Source(text: string): string {
  return `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`;
}
