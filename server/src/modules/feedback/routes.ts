import multipart from "@fastify/multipart";
import fastifyStatic from "@fastify/static";
import {
  FEEDBACK_ATTACHMENT_MAX_BYTES,
  FEEDBACK_STATUSES,
  feedbackMessageSchema,
  feedbackStatusSchema,
  hasUnstorableText,
  newFeedbackSchema,
} from "@turnout/domain";
import { eq, or } from "drizzle-orm";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { feedbackConversations, feedbackMedia, feedbackMessages } from "../../db/schema.js";
import { badRequest, notFound } from "../../errors.js";
import { idParamsSchema } from "../../request-schemas.js";
import { type Actor, actorOf, optionalActor } from "../../shared/guard.js";
import { describeUpload, type FilePart, fileTooLarge, type StoredFile, storeUpload } from "./media.js";
import { presentConversation, presentMessage } from "./present.js";
import {
  addMessage,
  assertCanPost,
  conversationFor,
  createConversation,
  deleteConversation,
  feedbackStats,
  listConversations,
  markRead,
  messagesOf,
  setConversationStatus,
  unreadTotal,
} from "./service.js";
import { MEDIA_NAME, MEDIA_URL_PATH, type MediaStore } from "./store.js";
import { assertDailyUploadRoom } from "./upload-quota.js";

/** Most characters of the optional text sent with an attachment. */
const UPLOAD_MESSAGE_MAX = 5000;
/** Room a multipart body may take beyond the file: part headers and the message field. */
const MULTIPART_OVERHEAD_BYTES = 1024 * 1024;

const statusQuery = z.object({ status: z.enum(FEEDBACK_STATUSES).optional() });

/** Every `/feedback` call of the contract (SPEC 7): members see their own conversations, admins all. */
export async function feedbackRoutes(app: FastifyInstance): Promise<void> {
  const { store, ffmpeg, converter } = app.feedback;
  const quota = {
    pendingPerUser: app.config.media.pendingPerUser,
    dailyBytesPerUser: app.config.media.dailyBytesPerUser,
  };
  const r = app.withTypeProvider<ZodTypeProvider>();
  const byId = { schema: { params: idParamsSchema } };
  const admin = { config: { access: "admin" as const } };

  const presentThread = async (conversationId: number, messageId?: number) => {
    const { messages, media } = await messagesOf(
      app.db,
      messageId === undefined ? { conversationId } : { messageId },
    );
    return messages.map((msg) => presentMessage(msg, media, store));
  };
  const badgeCount = (actor: Actor) => unreadTotal(app.db, actor.isAdmin ? "admin" : "user", actor.userId);

  r.get("/feedback/conversations", async (request) => {
    const actor = actorOf(request);
    const rows = await listConversations(app.db, { side: "user", ownerId: actor.userId });
    return { success: true, data: rows.map(presentConversation) };
  });

  r.post("/feedback/conversations", { schema: { body: newFeedbackSchema } }, async (request, reply) => {
    const actor = actorOf(request);
    const { conversationId, messageId } = await createConversation(app.services, actor, request.body);
    const conversation = await conversationFor(app.db, actor, conversationId, "user");
    const [message] = await presentThread(conversationId, messageId);
    return reply.status(201).send({
      success: true,
      message: "Feedback sent.",
      data: { conversation: presentConversation(conversation), message },
    });
  });

  r.get(
    "/feedback/admin/conversations",
    { ...admin, schema: { querystring: statusQuery } },
    async (request) => {
      const rows = await listConversations(app.db, { side: "admin", status: request.query.status });
      return { success: true, data: rows.map(presentConversation) };
    },
  );

  r.delete("/feedback/conversations/:id", { ...admin, ...byId }, async (request) => {
    const { id } = request.params;
    const files = await deleteConversation(app.services, actorOf(request), request.ip, id);
    await store.remove(files);
    return { success: true, message: "Conversation deleted.", data: { id } };
  });

  r.get("/feedback/conversations/:id/messages", byId, async (request) => {
    const conversation = await conversationFor(app.db, actorOf(request), request.params.id);
    return {
      success: true,
      data: {
        conversation: presentConversation(conversation),
        messages: await presentThread(conversation.id),
      },
    };
  });

  r.post(
    "/feedback/conversations/:id/messages",
    { schema: { params: idParamsSchema, body: feedbackMessageSchema } },
    async (request, reply) => {
      const { messageId } = await addMessage(
        app.services,
        actorOf(request),
        request.params.id,
        request.body.message,
      );
      const [message] = await presentThread(request.params.id, messageId);
      return reply.status(201).send({ success: true, data: { message } });
    },
  );

  r.patch(
    "/feedback/conversations/:id/status",
    { ...admin, schema: { params: idParamsSchema, body: feedbackStatusSchema } },
    async (request) => {
      const actor = actorOf(request);
      await setConversationStatus(app.services, actor, request.ip, request.params.id, request.body.status);
      const conversation = await conversationFor(app.db, actor, request.params.id);
      return {
        success: true,
        message: "Status updated.",
        data: { conversation: presentConversation(conversation) },
      };
    },
  );

  r.post("/feedback/conversations/:id/mark-read", byId, async (request) => {
    const actor = actorOf(request);
    const conversation = await conversationFor(app.db, actor, request.params.id);
    await markRead(app.db, actor, conversation);
    return { success: true, data: { unread_count: await badgeCount(actor) } };
  });

  r.get("/feedback/unread-count", async (request) => ({
    success: true,
    data: { unread_count: await unreadTotal(app.db, "user", actorOf(request).userId) },
  }));

  r.get("/feedback/admin/unread-count", admin, async (request) => ({
    success: true,
    data: { unread_count: await unreadTotal(app.db, "admin", actorOf(request).userId) },
  }));

  r.get("/feedback/admin/stats", admin, async () => ({
    success: true,
    data: {
      ...(await feedbackStats(app.db)),
      ffmpeg_available: ffmpeg.available,
      media_queue: await converter.state(),
    },
  }));

  // Uploads: the only multipart route here, so the parser is registered in this scope only.
  await app.register(async (scope) => {
    await scope.register(multipart, {
      limits: {
        fileSize: FEEDBACK_ATTACHMENT_MAX_BYTES - 1,
        files: 1,
        fields: 4,
        parts: 5,
        fieldSize: UPLOAD_MESSAGE_MAX * 4,
        headerPairs: 50,
      },
    });
    // A refusal sent before the body has all arrived (wrong type, too large, closed conversation):
    // the rest is of no use, so the connection closes instead of waiting for it.
    scope.addHook("onSend", async (request, reply) => {
      if (reply.statusCode >= 400 && !request.raw.complete) reply.header("connection", "close");
    });
    const s = scope.withTypeProvider<ZodTypeProvider>();
    s.post(
      "/feedback/conversations/:id/upload",
      {
        config: { bodyTypes: ["multipart/form-data"] },
        schema: { params: idParamsSchema },
        // Runs after the access check and before any of the body is read.
        onRequest: async (request) => {
          const length = Number(request.headers["content-length"]);
          if (length > FEEDBACK_ATTACHMENT_MAX_BYTES + MULTIPART_OVERHEAD_BYTES) throw fileTooLarge();
        },
        // Params are valid here and the body still unread: a conversation the caller may not post to
        // is refused without reading the file.
        preHandler: async (request) => {
          const actor = actorOf(request);
          await assertCanPost(app.db, actor, (request.params as { id: number }).id);
          // Over the day's bytes already, by the declared length: refused before the file is read.
          const declared = Number(request.headers["content-length"]);
          await assertDailyUploadRoom(app.db, actor.userId, Number.isFinite(declared) ? declared : 0, quota);
        },
      },
      async (request, reply) => {
        const actor = actorOf(request);
        const { file, message } = await receiveUpload(request, store);
        try {
          const media = await describeUpload(store, file, ffmpeg, app.config.media);
          const created = await addMessage(
            app.services,
            actor,
            request.params.id,
            message,
            media,
            quota,
          ).catch(async (err: unknown) => {
            await store.remove([media.filePath, media.thumbnailPath]);
            throw err;
          });
          if (media.posterPending || media.conversionStatus === "pending") converter.nudge();
          const [presented] = await presentThread(request.params.id, created.messageId);
          return reply.status(201).send({ success: true, data: { message: presented } });
        } catch (err) {
          await store.remove([file.name]);
          throw err;
        }
      },
    );
  });
}

/**
 * Reads the multipart body of an upload: the file (streamed to disk, see storeUpload) and the optional
 * `message` field, in either order. 400 without a file; what was stored is removed on any refusal.
 */
async function receiveUpload(
  request: FastifyRequest,
  store: MediaStore,
): Promise<{ file: StoredFile; message: string }> {
  let file: StoredFile | null = null;
  let message = "";
  try {
    for await (const part of request.parts()) {
      if (part.type === "field") {
        if (part.fieldname !== "message") continue;
        if (part.valueTruncated || typeof part.value !== "string")
          throw badRequest("The message is too long.");
        message = part.value.trim();
        if (message.length > UPLOAD_MESSAGE_MAX) throw badRequest("The message is too long.");
        if (hasUnstorableText(message))
          throw badRequest("The message contains characters that cannot be stored.");
        continue;
      }
      if (part.fieldname !== "file") {
        part.file.resume();
        continue;
      }
      file = await storeUpload(store, part as FilePart);
    }
  } catch (err) {
    if (file) await store.remove([file.name]);
    throw multipartRefusal(err);
  }
  if (!file) throw badRequest("Choose a file to upload (field 'file').");
  return { file, message };
}

/** Multipart limits as this route's errors: too many parts or fields is a bad request, not 413. */
function multipartRefusal(err: unknown): unknown {
  switch ((err as { code?: string }).code) {
    case "FST_REQ_FILE_TOO_LARGE":
      return fileTooLarge();
    case "FST_FILES_LIMIT":
      return badRequest("Attach one file at a time.");
    case "FST_PARTS_LIMIT":
    case "FST_FIELDS_LIMIT":
    case "FST_PROTO_VIOLATION":
    case "FST_INVALID_MULTIPART_CONTENT_TYPE":
    case "FST_MP_PREMATURE_CLOSE":
      return badRequest("The upload is not a valid form (fields 'file' and 'message').");
    default:
      return err;
  }
}

/**
 * `GET /feedback-uploads/<name>` at the root: a stored file or thumbnail, for its conversation's owner
 * and the admins (bearer token) or anyone with a valid signed link. Anything else is a 404 that never
 * tells whether the file exists. Public in the guard's terms (outside /api); the check is here.
 */
export async function feedbackMediaRoutes(app: FastifyInstance): Promise<void> {
  const { store } = app.feedback;
  await app.register(fastifyStatic, {
    root: store.dir,
    serve: false,
    index: false,
    list: false,
    cacheControl: false,
    dotfiles: "deny",
  });

  app.get<{ Params: { name: string }; Querystring: Record<string, unknown> }>(
    `${MEDIA_URL_PATH}:name`,
    async (request, reply) => {
      const { name } = request.params;
      const hidden = () => notFound("Not found");
      if (!MEDIA_NAME.test(name)) throw hidden();
      const [row] = await app.db
        .select({
          filePath: feedbackMedia.filePath,
          fileType: feedbackMedia.fileType,
          ownerId: feedbackConversations.userId,
        })
        .from(feedbackMedia)
        .innerJoin(feedbackMessages, eq(feedbackMessages.id, feedbackMedia.messageId))
        .innerJoin(feedbackConversations, eq(feedbackConversations.id, feedbackMessages.conversationId))
        .where(or(eq(feedbackMedia.filePath, name), eq(feedbackMedia.thumbnailPath, name)))
        .limit(1);
      if (!row) throw hidden();
      if (!store.verify(name, request.query.exp, request.query.sig)) {
        const actor = await optionalActor(app, request);
        if (!actor || (actor.userId !== row.ownerId && !actor.isAdmin)) throw hidden();
      }
      const type =
        row.filePath === name ? row.fileType : name.endsWith(".webp") ? "image/webp" : "image/jpeg";
      reply
        .header("Content-Type", type)
        .header("X-Content-Type-Options", "nosniff")
        .header("Content-Disposition", "inline")
        .header("Content-Security-Policy", "default-src 'none'; sandbox")
        .header("Cache-Control", "private, max-age=3600");
      return reply.sendFile(name, store.dir);
    },
  );
}
