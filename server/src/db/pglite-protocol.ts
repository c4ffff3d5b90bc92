// The messages between the server and the embedded database's thread (pglite-worker.mjs).

export type WorkerRequest =
  | {
      kind: "query";
      id: number;
      sql: string;
      params: unknown[];
      rowMode: "array" | "object";
      rawDates: boolean;
    }
  | { kind: "ping"; id: number }
  | { kind: "close" };

export type SerializedError = { message: string; name: string; fields: Record<string, string | number> };

export type WorkerReply =
  | { kind: "ready" }
  | { kind: "open-failed"; error: SerializedError }
  | { kind: "result"; id: number; rows: unknown[]; fields: unknown[]; affectedRows?: number }
  | { kind: "error"; id: number; error: SerializedError }
  | { kind: "pong"; id: number; closed: boolean }
  | { kind: "closed" };
