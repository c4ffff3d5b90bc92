import { CLIENT_ERRORS_PER_PAGE_LOAD } from "@turnout/domain";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { makeToken, storeSession } from "../testing/session-fixtures";
import { reportClientError, resetReportedClientErrors } from "./client-errors";

let fetchMock: ReturnType<typeof vi.fn>;
beforeEach(() => {
  resetReportedClientErrors();
  fetchMock = vi.fn(() => Promise.resolve(new Response(null, { status: 204 })));
  vi.stubGlobal("fetch", fetchMock);
  window.history.replaceState(null, "", "/admin?tab=users");
});
afterEach(() => {
  vi.unstubAllGlobals();
  window.history.replaceState(null, "", "/");
});

const sentBodies = () =>
  fetchMock.mock.calls.map(([, init]) => JSON.parse((init as RequestInit).body as string));

describe("reportClientError", () => {
  it("posts the error, where it happened (no query) and the release, and does not wait for it", () => {
    const error = new TypeError("x is undefined");
    reportClientError(error, "render");
    expect(fetchMock).toHaveBeenCalledTimes(1);
    const [url, init] = fetchMock.mock.calls[0] as [string, RequestInit];
    expect(url).toBe("/api/client-errors");
    expect(init).toMatchObject({ method: "POST", keepalive: true });
    expect(sentBodies()[0]).toEqual({
      kind: "render",
      message: "TypeError: x is undefined",
      stack: error.stack,
      path: "/admin",
      release: expect.stringMatching(/^client-errors\.ts/),
    });
  });

  it("sends the session when there is one, and goes without it on the login screen", () => {
    reportClientError(new Error("signed out"), "error");
    const token = makeToken();
    storeSession({ token });
    reportClientError(new Error("signed in"), "error");
    const headers = fetchMock.mock.calls.map(
      ([, init]) => (init as RequestInit).headers as Record<string, string>,
    );
    expect(headers[0]).not.toHaveProperty("authorization");
    expect(headers[1]).toMatchObject({ authorization: `Bearer ${token}` });
  });

  it("reports each message once, and a few at most per page load", () => {
    reportClientError(new Error("same"), "error");
    reportClientError(new Error("same"), "unhandled_rejection");
    for (let i = 0; i < 20; i++) reportClientError(new Error(`loop ${i}`), "error");
    expect(sentBodies().map((b) => b.message)).toEqual([
      "same",
      ...Array.from({ length: CLIENT_ERRORS_PER_PAGE_LOAD - 1 }, (_, i) => `loop ${i}`),
    ]);
  });

  it("leaves out what browsers raise that is no fault of the app", () => {
    reportClientError("ResizeObserver loop completed with undelivered notifications.", "error");
    reportClientError("ResizeObserver loop limit exceeded", "error");
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it("never throws, whether the request fails or fetch itself throws", async () => {
    fetchMock.mockImplementationOnce(() => Promise.reject(new TypeError("Failed to fetch")));
    expect(() => reportClientError(new Error("offline"), "error")).not.toThrow();
    fetchMock.mockImplementationOnce(() => {
      throw new Error("no fetch here");
    });
    expect(() => reportClientError(new Error("odd browser"), "error")).not.toThrow();
    await Promise.resolve();
    expect(fetchMock).toHaveBeenCalledTimes(2);
  });
});
