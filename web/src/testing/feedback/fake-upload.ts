import { vi } from "vitest";

/** One upload as the fake XMLHttpRequest saw it; the test answers it when it likes. */
export interface FakeUpload {
  method: string;
  /** Path under /api, e.g. "/feedback/conversations/7/upload". */
  path: string;
  headers: Record<string, string>;
  body: FormData;
  /** Reports upload progress (bytes sent of total). */
  progress: (loaded: number, total: number) => void;
  respond: (status: number, body?: unknown) => void;
  /** The connection failed (no answer). */
  fail: () => void;
}

type Listener = (event: ProgressEvent) => void;

/**
 * Replaces XMLHttpRequest (the feedback upload's transport) with a fake. `answer` may reply at once
 * (a status and body); without it, or when it returns undefined, the test replies through the upload.
 */
export function fakeUploads(answer?: (upload: FakeUpload) => { status: number; body?: unknown } | undefined) {
  const uploads: FakeUpload[] = [];

  class FakeXhr {
    status = 0;
    statusText = "";
    responseText = "";
    private method = "GET";
    private url = "";
    private readonly headers: Record<string, string> = {};
    private readonly listeners = new Map<string, Listener[]>();
    private readonly uploadListeners = new Map<string, Listener[]>();
    readonly upload = {
      addEventListener: (type: string, listener: Listener) => {
        this.uploadListeners.set(type, [...(this.uploadListeners.get(type) ?? []), listener]);
      },
    };

    open(method: string, url: string) {
      this.method = method;
      this.url = url;
    }

    setRequestHeader(name: string, value: string) {
      this.headers[name.toLowerCase()] = value;
    }

    getResponseHeader() {
      return null;
    }

    addEventListener(type: string, listener: Listener) {
      this.listeners.set(type, [...(this.listeners.get(type) ?? []), listener]);
    }

    private fire(map: Map<string, Listener[]>, type: string, init: ProgressEventInit = {}) {
      for (const listener of map.get(type) ?? []) listener(new ProgressEvent(type, init));
    }

    abort() {
      this.fire(this.listeners, "abort");
    }

    send(body: FormData) {
      const url = new URL(this.url, "http://localhost");
      const upload: FakeUpload = {
        method: this.method,
        path: url.pathname.replace(/^\/api/, ""),
        headers: this.headers,
        body,
        progress: (loaded, total) =>
          this.fire(this.uploadListeners, "progress", { lengthComputable: true, loaded, total }),
        respond: (status, reply) => {
          this.status = status;
          this.responseText = reply === undefined ? "" : JSON.stringify(reply);
          this.fire(this.listeners, "load");
        },
        fail: () => this.fire(this.listeners, "error"),
      };
      uploads.push(upload);
      const reply = answer?.(upload);
      if (reply) setTimeout(() => upload.respond(reply.status, reply.body), 0);
    }
  }

  vi.stubGlobal("XMLHttpRequest", FakeXhr);
  return { uploads };
}
