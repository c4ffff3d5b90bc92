import { existsSync } from "node:fs";
import path from "node:path";
import fastifyStatic from "@fastify/static";
import type { FastifyInstance, FastifyReply } from "fastify";

const NOT_BUILT =
  "Turnout's web app has not been built yet. Run `npm run build` (npm start does it for you).";

/**
 * Serves the built web app on the same port as the API: hashed assets cached for a year, the shell
 * and the service worker always revalidated, client routes answered with index.html, and `/j/{id}`
 * redirected to `/?job={id}` (SPEC 2).
 */
export async function webRoutes(app: FastifyInstance): Promise<void> {
  const root = app.config.webDistDir;
  const built = existsSync(path.join(root, "index.html"));

  app.get<{ Params: { id: string } }>("/j/:id", async (request, reply) => {
    const { id } = request.params;
    if (/^\d{1,18}$/.test(id)) return reply.redirect(`/?job=${id}`, 302);
    return sendShell(reply);
  });

  // The root is the shell: the wildcard below would answer a directory's address with 403.
  app.get("/", (_request, reply) => sendShell(reply));

  if (built) {
    await app.register(fastifyStatic, {
      root,
      // One route for every file (the default) rather than one per file found at start: the build's ~200
      // files made ~400 routes that the router and the route table held for good (issue 32). A missing
      // file falls through to the not-found handler below either way.
      wildcard: true,
      // The build writes .br and .gz beside each text asset; send them to clients that accept them.
      preCompressed: true,
      index: false,
      setHeaders(reply, filePath) {
        // A precompressed copy (sw.js.br) gets the headers of the file it stands for.
        const name = path.basename(filePath).replace(/\.(br|gz)$/, "");
        if (filePath.includes(`${path.sep}assets${path.sep}`)) {
          reply.header("Cache-Control", "public, max-age=31536000, immutable");
        } else if (
          name === "sw.js" ||
          name === "push-sw.js" ||
          name === "index.html" ||
          name.endsWith(".webmanifest")
        ) {
          reply.header("Cache-Control", "no-cache");
        }
      },
    });
  }

  const apiLike = /^\/(api|socket\.io|feedback-uploads)(\/|$)/;
  app.setNotFoundHandler((request, reply) => {
    const pathname = request.url.split("?")[0] ?? "/";
    const wantsPage = (request.method === "GET" || request.method === "HEAD") && !apiLike.test(pathname);
    if (wantsPage && !path.extname(pathname)) return sendShell(reply);
    return reply.status(404).send({
      success: false,
      message: `No such endpoint: ${request.method} ${pathname}`,
      errorType: "not_found",
    });
  });

  function sendShell(reply: FastifyReply) {
    if (!built) return reply.status(503).type("text/plain").send(NOT_BUILT);
    reply.header("Cache-Control", "no-cache");
    return reply.sendFile("index.html");
  }
}
