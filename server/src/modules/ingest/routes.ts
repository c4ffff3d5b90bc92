import { capcodeSchema } from "@turnout/domain";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { AppError } from "../../errors.js";
import { actorOf } from "../auth/guard.js";
import { issueIngestKey, listIngestKeys, revokeIngestKey, verifyIngestKey } from "./keys.js";
import { type IncomingMessage, ingestMessages } from "./service.js";

export const MAX_MESSAGE_LENGTH = 2000;
export const MAX_BATCH = 1000;

const textSchema = z
  .string()
  .transform((v) => v.replace(/\s+$/u, ""))
  .pipe(
    z
      .string()
      .min(1, "message is required")
      .max(MAX_MESSAGE_LENGTH, `message must be at most ${MAX_MESSAGE_LENGTH} characters`),
  );

/**
 * ISO text, or unix seconds (or milliseconds, told apart by size). A time in the future or too old is
 * not refused (that would leave the receiver's spool stuck on it): ingest shows the receipt time instead.
 */
const timeSchema = z
  .union([z.string().datetime({ offset: true }), z.number().finite().nonnegative()])
  .transform((v) => (typeof v === "number" ? new Date(v < 1e11 ? v * 1000 : v) : new Date(v)));

const sourceSchema = z.string().trim().min(1).max(64);

const messageSchema = z.object({
  capcode: capcodeSchema,
  message: textSchema,
  timestamp: timeSchema.optional(),
  source: sourceSchema.optional(),
  id: z.string().trim().min(1).max(128).optional(),
});
const ingestBody = z.union([
  z.object({
    messages: z.array(messageSchema).min(1).max(MAX_BATCH, `at most ${MAX_BATCH} messages per request`),
  }),
  messageSchema,
]);

/** PagerMon's reader body (client/reader.js): form-encoded or JSON. */
const pagermonBody = z.object({
  address: capcodeSchema,
  message: textSchema,
  datetime: z
    .union([z.coerce.number().finite().nonnegative(), z.string().datetime({ offset: true })])
    .optional(),
  source: sourceSchema.optional(),
});

function presentedKey(request: FastifyRequest): string | null {
  const auth = request.headers.authorization;
  const bearer = auth ? /^Bearer\s+(\S+)$/i.exec(auth)?.[1] : undefined;
  const header = request.headers["x-api-key"] ?? request.headers.apikey;
  return bearer ?? (typeof header === "string" ? header : null);
}

/** Pager messages in: the native batch endpoint, the PagerMon-compatible one, and admin-issued keys. */
export async function ingestRoutes(app: FastifyInstance): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();

  // Checked before the body is parsed or validated: a caller without a key learns nothing else.
  const keyNames = new WeakMap<FastifyRequest, string>();
  const requireIngestKey = async (request: FastifyRequest) => {
    const key = await verifyIngestKey(app.db, app.config.ingestApiKey, presentedKey(request));
    if (!key) throw new AppError(401, "unauthorized", "A valid ingest key is required.");
    keyNames.set(request, key.name);
  };
  const keyName = (request: FastifyRequest) => keyNames.get(request) ?? "unknown";

  r.post(
    "/ingest/messages",
    { bodyLimit: 8 * 1024 * 1024, onRequest: requireIngestKey, schema: { body: ingestBody } },
    async (request) => {
      const list = "messages" in request.body ? request.body.messages : [request.body];
      const incoming: IncomingMessage[] = list.map((m) => ({
        capcode: m.capcode,
        message: m.message,
        sentAt: m.timestamp ?? null,
        source: m.source ?? keyName(request),
        id: m.id ?? null,
      }));
      const results = await ingestMessages(app.services, incoming);
      return {
        success: true,
        data: results,
        created: results.filter((x) => x.status === "created").length,
        duplicates: results.filter((x) => x.status !== "created").length,
      };
    },
  );

  // PagerMon's readers reply-parse plain text: the new id, or "Ignoring duplicate".
  r.post(
    "/messages",
    { onRequest: requireIngestKey, schema: { body: pagermonBody } },
    async (request, reply) => {
      const b = request.body;
      const sentAt =
        b.datetime === undefined
          ? null
          : typeof b.datetime === "number"
            ? new Date(b.datetime < 1e11 ? b.datetime * 1000 : b.datetime)
            : new Date(b.datetime);
      const [result] = await ingestMessages(app.services, [
        { capcode: b.address, message: b.message, sentAt, source: b.source ?? keyName(request), id: null },
      ]);
      reply.type("text/plain; charset=utf-8");
      return result!.status === "duplicate" ? "Ignoring duplicate" : String(result!.id);
    },
  );

  r.get("/admin/ingest-keys", { preHandler: app.requireAdmin }, async () => ({
    success: true,
    data: await listIngestKeys(app.db),
  }));

  r.post(
    "/admin/ingest-keys",
    { preHandler: app.requireAdmin, schema: { body: z.object({ name: z.string().trim().min(1).max(100) }) } },
    async (request, reply) => {
      const issued = await issueIngestKey(app.db, request.body.name, actorOf(request).userId);
      return reply.status(201).send({ success: true, data: issued });
    },
  );

  r.delete(
    "/admin/ingest-keys/:id",
    {
      preHandler: app.requireAdmin,
      schema: { params: z.object({ id: z.coerce.number().int().positive() }) },
    },
    async (request) => {
      await revokeIngestKey(app.db, request.params.id);
      return { success: true, message: "Key revoked." };
    },
  );
}
