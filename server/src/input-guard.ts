import { findUnstorableText } from "@turnout/domain";
import type { FastifyInstance } from "fastify";
import { badRequest } from "./errors.js";

declare module "fastify" {
  interface FastifyContextConfig {
    /**
     * The route takes text the database cannot store (NUL, unpaired surrogates) and makes it storable
     * itself, instead of answering 400: pager ingest, whose decoders emit such characters.
     */
    rawText?: boolean;
  }
}

/**
 * Refuses, with a 400 naming the field, any request whose path parameters, query or body carry text
 * the database cannot store (U+0000, an unpaired surrogate), before the route's schema or handler sees
 * it: one check for every route, including routes added later, instead of a 500 from the database.
 */
export function registerInputGuard(app: FastifyInstance): void {
  app.addHook("preValidation", async (request) => {
    if (request.routeOptions.config.rawText) return;
    const where =
      findUnstorableText(request.params, "params") ??
      findUnstorableText(request.query, "query") ??
      findUnstorableText(request.body, "body");
    if (where) {
      throw badRequest(
        `Invalid ${where}: contains a character that cannot be stored (a NUL or an unpaired surrogate).`,
        { fields: [{ field: where, message: "contains a character that cannot be stored" }] },
      );
    }
  });
}
