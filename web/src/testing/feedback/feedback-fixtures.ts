import { type MockApi, type MockRoute, mockApi } from "../mock-api";

export function conversation(overrides: Record<string, unknown> = {}) {
  return {
    id: 7,
    subject: "Wrong address on map",
    status: "open",
    message_count: 2,
    unread_count: 0,
    last_message_at: "2026-11-20T08:30:00.000Z",
    created_at: "2026-11-20T08:00:00.000Z",
    updated_at: "2026-11-20T08:30:00.000Z",
    user: { id: 5, first_name: "Sam", last_name: "Taylor" },
    ...overrides,
  };
}

export function media(overrides: Record<string, unknown> = {}) {
  return {
    id: 31,
    file_name: "street.jpg",
    file_type: "image/jpeg",
    kind: "image",
    size_bytes: 120_000,
    file_path: "/feedback-uploads/abc.jpg?exp=1&sig=aa",
    thumbnail_path: "/feedback-uploads/abc-thumb.webp?exp=1&sig=bb",
    conversion_status: "none",
    ...overrides,
  };
}

export function message(overrides: Record<string, unknown> = {}) {
  return {
    id: 11,
    conversation_id: 7,
    message: "The pin is two streets away.",
    is_admin: false,
    sender_name: "Sam Taylor",
    created_at: "2026-11-20T08:00:00.000Z",
    media_attachments: [],
    ...overrides,
  };
}

const ok = (data: unknown, status = 200) => ({ status, body: { success: true, data } });

export type Conversations = ReturnType<typeof conversation>[];
export type Threads = Record<number, ReturnType<typeof message>[]>;

/**
 * A fake /api/feedback over `conversations` and their `threads`: lists, threads, new conversations,
 * messages, mark-read (with the time it came), status changes and deletes, user and admin counts.
 */
export function feedbackServer(
  initial: { conversations?: Conversations; threads?: Threads; unread?: number; adminUnread?: number } = {},
  extra: Record<string, MockRoute> = {},
): MockApi & {
  state: { conversations: Conversations; threads: Threads; unread: number; adminUnread: number };
  markedAt: number[];
  threadAskedAt: number[];
} {
  const state = {
    conversations: [...(initial.conversations ?? [])],
    threads: { ...(initial.threads ?? {}) },
    unread: initial.unread ?? 0,
    adminUnread: initial.adminUnread ?? 0,
  };
  const markedAt: number[] = [];
  const threadAskedAt: number[] = [];
  const idOf = (path: string) => Number(path.split("/")[3]);
  const find = (id: number) => state.conversations.find((candidate) => candidate.id === id);
  const notFound = {
    status: 404,
    body: { success: false, errorType: "not_found", message: "Conversation not found." },
  };

  const server = mockApi({
    "GET /feedback/conversations": () => ok(state.conversations),
    "GET /feedback/admin/conversations": (request) => {
      const status = request.query.get("status");
      return ok(state.conversations.filter((candidate) => !status || candidate.status === status));
    },
    "GET /feedback/unread-count": () => ok({ unread_count: state.unread }),
    "GET /feedback/admin/unread-count": () => ok({ unread_count: state.adminUnread }),
    "GET /feedback/admin/stats": () =>
      ok({
        total: state.conversations.length,
        open: state.conversations.filter((candidate) => candidate.status === "open").length,
        in_progress: 0,
        closed: state.conversations.filter((candidate) => candidate.status === "closed").length,
        unread_count: state.adminUnread,
        messages: 4,
        attachments: 1,
        attachment_bytes: 2_097_152,
        ffmpeg_available: true,
      }),
    "GET /feedback/conversations/*": (request) => {
      threadAskedAt.push(Date.now());
      const found = find(idOf(request.path));
      if (!found) return notFound;
      return ok({ conversation: found, messages: state.threads[found.id] ?? [] });
    },
    "POST /feedback/conversations": (request) => {
      const body = request.body as { subject: string; message: string };
      const created = conversation({ id: 99, subject: body.subject, message_count: 1 });
      const first = message({ id: 990, conversation_id: 99, message: body.message });
      state.conversations.unshift(created);
      state.threads[99] = [first];
      return ok({ conversation: created, message: first }, 201);
    },
    "POST /feedback/conversations/*": (request) => {
      const id = idOf(request.path);
      const found = find(id);
      if (!found) return notFound;
      if (request.path.endsWith("/mark-read")) {
        markedAt.push(Date.now());
        found.unread_count = 0;
        return ok({ unread_count: 0 });
      }
      if (found.status === "closed") {
        return {
          status: 409,
          body: { success: false, errorType: "conflict", message: "This conversation has been closed" },
        };
      }
      const sent = message({
        id: 500 + (state.threads[id]?.length ?? 0),
        conversation_id: id,
        message: (request.body as { message: string }).message,
      });
      state.threads[id] = [...(state.threads[id] ?? []), sent];
      return ok({ message: sent }, 201);
    },
    "PATCH /feedback/conversations/*": (request) => {
      const found = find(idOf(request.path));
      if (!found) return notFound;
      found.status = (request.body as { status: string }).status;
      return ok({ conversation: found });
    },
    "DELETE /feedback/conversations/*": (request) => {
      const id = idOf(request.path);
      state.conversations = state.conversations.filter((candidate) => candidate.id !== id);
      return ok({ id });
    },
    ...extra,
  });
  return Object.assign(server, { state, markedAt, threadAskedAt });
}
