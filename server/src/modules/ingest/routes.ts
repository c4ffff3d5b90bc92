import { capcodeSchema, heartbeatSchema, storablePagerText } from "@turnout/domain";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { isConnectionFailure } from "../../db/reachability.js";
import { type AppError, badRequest } from "../../errors.js";
import { idParamsSchema } from "../../request-schemas.js";
import { actorOf } from "../../shared/guard.js";
import { type SystemLogEntry, writeSystemLog } from "../../system-log.js";
import { ingestKeyGuard } from "./key-guard.js";
import { issueIngestKey, listIngestKeys, revokeIngestKey } from "./keys.js";
import { type IncomingMessage, ingestMessages } from "./service.js";

export const MAX_MESSAGE_LENGTH = 2000;
export const MAX_BATCH = 1000;
/**
 * Longest text read at all, before anything else is done with it: four times the stored limit leaves
 * room for control characters and trailing blanks a decoder adds, and anything longer is refused
 * without a pass over it.
 */
const MAX_RECEIVED_TEXT = 4 * MAX_MESSAGE_LENGTH;
/**
 * Bytes one message can take in a JSON body: its text as UTF-8 (3 bytes a UTF-16 unit at most), the
 * id (128) and source (64) likewise, the capcode, time, names and punctuation.
 */
const MESSAGE_BYTES = 3 * (MAX_MESSAGE_LENGTH + 128 + 64) + 256;
/** A full batch; a bigger body is a 413 before it is parsed (the bundled reader then halves its batch). */
export const INGEST_BODY_LIMIT = MAX_BATCH * MESSAGE_BYTES + 1024;
/** PagerMon's one message, form-encoded: every byte can be a three-character percent escape. */
export const PAGERMON_BODY_LIMIT = 3 * MESSAGE_BYTES;
/** The last millisecond of year 9999: the end of what ISO 8601 text (and a sane receiver clock) can say. */
const LATEST_TIME_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

// Length first, then single passes only (trimEnd, not a regex: `/\s+$/` is quadratic on a run of
// blanks that is followed by anything else).
const textSchema = z
  .string()
  .max(MAX_RECEIVED_TEXT, `message must be at most ${MAX_MESSAGE_LENGTH} characters`)
  .transform((v) => storablePagerText(v).trimEnd())
  .pipe(
    z
      .string()
      .min(1, "message is required")
      .max(MAX_MESSAGE_LENGTH, `message must be at most ${MAX_MESSAGE_LENGTH} characters`),
  );

/** An optional label (source, id): made storable and trimmed; one left blank counts as not given. */
const labelSchema = (max: number) =>
  z.preprocess(
    (v) => (typeof v === "string" && v.length <= 4 * max ? storablePagerText(v).trim() || undefined : v),
    z.string().max(max, `must be at most ${max} characters`).optional(),
  );

const isoTimeSchema = z.string().datetime({ offset: true });

/**
 * A sender's time: unix seconds (or milliseconds, told apart by size), or ISO 8601 text with an offset;
 * with `numericText`, digits in text count as a number (form bodies carry nothing else). Refused, with
 * the field named, when no date between 1970 and the end of 9999 is meant: 1e20, -1, "abc", year 10000.
 */
const pagerTimeSchema = (field: string, { numericText }: { numericText: boolean }) =>
  z.union([z.number(), z.string().max(64, `${field} is too long to be a time`)]).transform((v, ctx) => {
    let ms = Number.NaN;
    if (typeof v === "number" || (numericText && /^\s*\d+(\.\d+)?\s*$/.test(v))) {
      const n = Number(v);
      if (n >= 0) ms = n < 1e11 ? n * 1000 : n;
    } else if (isoTimeSchema.safeParse(v).success) {
      ms = Date.parse(v);
    }
    if (!(ms >= 0 && ms <= LATEST_TIME_MS)) {
      ctx.addIssue({
        code: "custom",
        message: `${field} must be unix seconds or milliseconds, or an ISO 8601 time with an offset, between 1970 and 9999`,
      });
      return z.NEVER;
    }
    return new Date(ms);
  });

const messageSchema = z.object({
  capcode: capcodeSchema,
  message: textSchema,
  // A time in the future or too old is not refused (that would leave a receiver's spool stuck on it):
  // ingest shows the receipt time instead (domain pagerTime).
  timestamp: pagerTimeSchema("timestamp", { numericText: false }).optional(),
  source: labelSchema(64),
  id: labelSchema(128),
});
type ValidMessage = z.output<typeof messageSchema>;

/**
 * The envelope only: a batch (each message checked on its own, so one bad message cannot sink the
 * others) or a single message (checked in the handler, a bad one answered 400).
 */
const ingestBody = z.looseObject({
  messages: z
    .array(z.unknown())
    .min(1, "messages must hold at least one message")
    .max(MAX_BATCH, `at most ${MAX_BATCH} messages per request`)
    .optional(),
});

/** A message of a batch that is not stored, and why, so the sender can set it aside. */
type Refusal = { index: number; id: string | null; reason: string };

/** The system log's record of a batch with refused messages: which key sent it, and the first refusals. */
function ingestRefusalEntry(
  source: string,
  ip: string,
  refused: Refusal[],
  batchSize: number,
): SystemLogEntry {
  return {
    level: "warn",
    category: "ingest",
    message: `Ingest refused ${refused.length} of ${batchSize} messages from ${source}`,
    details: { source, refused: refused.slice(0, 20) },
    ip,
  };
}

/** The sender's id of a refused message, when it gave one, as it would have been stored. */
function givenId(item: unknown): string | null {
  const id = typeof item === "object" && item !== null ? (item as { id?: unknown }).id : undefined;
  return typeof id === "string" ? storablePagerText(id).trim().slice(0, 128) || null : null;
}

/** A single-message body that is not a valid message: 400 with the failing fields, as a schema failure. */
function singleMessageError(error: z.ZodError): AppError {
  const fields = error.issues.map((issue) => ({
    field: ["body", ...issue.path.map(String)].join("."),
    message: issue.message,
  }));
  return badRequest(`Invalid ${fields[0]?.field ?? "body"}: ${fields[0]?.message ?? "is invalid"}`, {
    fields,
  });
}

function reasonFor(error: z.ZodError): string {
  return error.issues
    .map((issue) => (issue.path.length ? `${issue.path.join(".")}: ${issue.message}` : issue.message))
    .join("; ");
}

/** PagerMon's reader body (client/reader.js): form-encoded or JSON. */
const pagermonBody = z.object({
  address: capcodeSchema,
  message: textSchema,
  datetime: z.preprocess(
    // An empty form field means no time given, not 1970.
    (v) => (typeof v === "string" && v.trim() === "" ? undefined : v),
    pagerTimeSchema("datetime", { numericText: true }).optional(),
  ),
  source: labelSchema(64),
});

/**
 * A form body read leniently, byte by byte: `+` is a space, a percent escape is a byte, and each name
 * and value is read as UTF-8 with U+FFFD for bytes that are not (a decoder's raw bytes). The default
 * parser keeps a whole value percent-encoded when one escape is not UTF-8, which would store
 * `@@ALERT+F25...%FF` as the text. The first of a repeated field wins.
 */
export function parseFormLeniently(body: Buffer): Record<string, string> {
  const utf8 = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });
  const decode = (bytes: Buffer) => {
    const out = Buffer.alloc(bytes.length);
    let n = 0;
    for (let i = 0; i < bytes.length; i++) {
      const byte = bytes[i]!;
      const hex = byte === 0x25 ? bytes.subarray(i + 1, i + 3).toString("latin1") : "";
      if (/^[0-9a-fA-F]{2}$/.test(hex)) {
        out[n++] = Number.parseInt(hex, 16);
        i += 2;
      } else {
        out[n++] = byte === 0x2b ? 0x20 : byte;
      }
    }
    return utf8.decode(out.subarray(0, n));
  };
  const fields = new Map<string, string>();
  let start = 0;
  while (start <= body.length) {
    const end = body.indexOf(0x26, start) < 0 ? body.length : body.indexOf(0x26, start);
    const pair = body.subarray(start, end);
    start = end + 1;
    if (pair.length === 0) continue;
    const eq = pair.indexOf(0x3d);
    const name = decode(eq < 0 ? pair : pair.subarray(0, eq));
    if (!fields.has(name)) fields.set(name, eq < 0 ? "" : decode(pair.subarray(eq + 1)));
  }
  return Object.fromEntries(fields);
}

/** How many message ids a failed batch's log line names; the count says how many more there were. */
const LOGGED_IDS = 50;

/**
 * One line for a batch that could not be stored: its size, key, sources and message ids, never the
 * texts (a batch of 1000 is hundreds of kilobytes). A database out of reach is not logged per batch:
 * the pool says so once per outage and the sender, answered 503, sends the batch again.
 */
function logFailedBatch(
  request: FastifyRequest,
  key: string,
  messages: IncomingMessage[],
  err: unknown,
): void {
  if (isConnectionFailure(err)) return;
  const ids = messages.flatMap((m) => (m.id === null ? [] : [m.id]));
  request.log.error(
    {
      err,
      batch: {
        size: messages.length,
        key,
        sources: [...new Set(messages.map((m) => m.source))].slice(0, 10),
        ids: ids.slice(0, LOGGED_IDS),
        idsNotShown: Math.max(0, ids.length - LOGGED_IDS),
      },
    },
    "ingest batch failed",
  );
}

/** Pager messages in: the native batch endpoint, the PagerMon-compatible one, and admin-issued keys. */
export async function ingestRoutes(app: FastifyInstance): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();

  // Checked before the body is parsed or validated: a caller without a key learns nothing else.
  const { requireIngestKey, identityOf } = ingestKeyGuard(app);
  const keyName = (request: FastifyRequest) => identityOf(request)?.name ?? "unknown";
  /** The receiver the request's key belongs to (issue 33): its messages record it. */
  const receiverOf = (request: FastifyRequest) => identityOf(request)?.receiverId ?? null;
  /** Stored pages count as their receiver's sign of life and last page (the receivers module's). */
  const noteReceiverHeard = async (request: FastifyRequest, messages: number) => {
    const receiverId = receiverOf(request);
    if (receiverId !== null && messages > 0)
      await app.services.events.publish("receiverHeard", { receiverId, messages });
  };
  // No user session: the ingest key is the caller's credential. rawText: decoders emit NUL and broken
  // surrogates, which these routes make storable themselves instead of the app-wide 400.
  const INGEST = { access: "public", rawText: true } as const;

  // Only in this plugin: PagerMon's readers post forms, and a decoder's raw bytes must not garble them.
  app.removeContentTypeParser("application/x-www-form-urlencoded");
  app.addContentTypeParser(
    "application/x-www-form-urlencoded",
    { parseAs: "buffer" },
    (_request, body, done) => done(null, parseFormLeniently(body as Buffer)),
  );

  r.post(
    "/ingest/messages",
    {
      bodyLimit: INGEST_BODY_LIMIT,
      onRequest: requireIngestKey,
      config: INGEST,
      schema: { body: ingestBody },
    },
    async (request) => {
      const { messages } = request.body;
      const valid: { index: number; message: ValidMessage }[] = [];
      const refused: Refusal[] = [];
      if (messages === undefined) {
        const single = messageSchema.safeParse(request.body);
        if (!single.success) throw singleMessageError(single.error);
        valid.push({ index: 0, message: single.data });
      } else {
        messages.forEach((item, index) => {
          const parsed = messageSchema.safeParse(item);
          if (parsed.success) valid.push({ index, message: parsed.data });
          else refused.push({ index, id: givenId(item), reason: reasonFor(parsed.error) });
        });
      }
      const incoming: IncomingMessage[] = valid.map(({ message: m }) => ({
        capcode: m.capcode,
        message: m.message,
        sentAt: m.timestamp ?? null,
        source: m.source ?? keyName(request),
        id: m.id ?? null,
        receiverId: receiverOf(request),
      }));
      const results = await ingestMessages(app.services, incoming).catch((err: unknown) => {
        logFailedBatch(request, keyName(request), incoming, err);
        throw err;
      });
      await noteReceiverHeard(request, incoming.length);
      app.metrics.countIngest(results, refused.length);
      if (refused.length > 0)
        await writeSystemLog(
          app.db,
          ingestRefusalEntry(keyName(request), request.ip, refused, messages?.length ?? 1),
        );
      return {
        success: true,
        data: results,
        created: results.filter((x) => x.status === "created").length,
        duplicates: results.filter((x) => x.status !== "created").length,
        refused,
      };
    },
  );

  // PagerMon's readers reply-parse plain text: the new id, or "Ignoring duplicate".
  r.post(
    "/messages",
    {
      bodyLimit: PAGERMON_BODY_LIMIT,
      onRequest: requireIngestKey,
      // PagerMon's readers post forms: the one /api route that takes them (issue 27).
      config: { ...INGEST, bodyTypes: ["application/x-www-form-urlencoded"] },
      schema: { body: pagermonBody },
    },
    async (request, reply) => {
      const b = request.body;
      const incoming: IncomingMessage = {
        capcode: b.address,
        message: b.message,
        sentAt: b.datetime ?? null,
        source: b.source ?? keyName(request),
        id: null,
        receiverId: receiverOf(request),
      };
      const [result] = await ingestMessages(app.services, [incoming]).catch((err: unknown) => {
        logFailedBatch(request, keyName(request), [incoming], err);
        throw err;
      });
      await noteReceiverHeard(request, 1);
      app.metrics.countIngest([result!], 0);
      reply.type("text/plain; charset=utf-8");
      return result!.status === "duplicate" ? "Ignoring duplicate" : String(result!.id);
    },
  );

  // A receiver's heartbeat (issue 33): spool depth, dead letters, decoder status, uptime, version.
  r.post(
    "/ingest/heartbeat",
    { onRequest: requireIngestKey, config: INGEST, schema: { body: heartbeatSchema } },
    async (request) => {
      const receiverId = receiverOf(request);
      if (receiverId !== null)
        await app.services.events.publish("heartbeatReceived", { receiverId, heartbeat: request.body });
      return { success: true, receiver_id: receiverId };
    },
  );

  r.get("/admin/ingest-keys", async () => ({
    success: true,
    data: await listIngestKeys(app.db),
  }));

  r.post(
    "/admin/ingest-keys",
    { schema: { body: z.object({ name: z.string().trim().min(1).max(100) }) } },
    async (request, reply) => {
      const issued = await issueIngestKey(app.db, request.body.name, actorOf(request).userId);
      return reply.status(201).send({ success: true, data: issued });
    },
  );

  r.delete(
    "/admin/ingest-keys/:id",
    {
      schema: { params: idParamsSchema },
    },
    async (request) => {
      await revokeIngestKey(app.db, request.params.id);
      return { success: true, message: "Key revoked." };
    },
  );
}
