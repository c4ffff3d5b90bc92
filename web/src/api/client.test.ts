import { MESSAGES, REQUEST_TIMEOUT_MS } from "@turnout/domain";
import { hangingFetch, mockApi } from "../testing/mock-api";
import { makeToken } from "../testing/session-fixtures";
import { api, fetchEarly } from "./client";
import { ApiError } from "./errors";
import { onSessionNotice, type SessionNotice } from "./session-events";

function collectNotices() {
  const notices: SessionNotice[] = [];
  const stop = onSessionNotice((notice) => notices.push(notice));
  return { notices, stop };
}

async function caught(promise: Promise<unknown>): Promise<ApiError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error("expected the call to fail");
}

describe("api client", () => {
  it("calls under /api with the device headers on every request", async () => {
    const server = mockApi({ "GET /health": { body: { status: "ok" } } });
    await expect(api.get("/health")).resolves.toEqual({ status: "ok" });
    const [request] = server.requests;
    const deviceId = request?.headers.get("X-Device-ID");
    expect(deviceId).toMatch(/^[0-9a-f]{32,64}$/);
    const info = JSON.parse(request?.headers.get("X-Device-Info") ?? "{}");
    expect(Object.keys(info).sort()).toEqual(
      ["browser", "device", "deviceId", "language", "os", "platform", "screenResolution", "timezone"].sort(),
    );
    expect(info.deviceId).toBe(deviceId);
    expect(["Tablet", "Mobile", "Desktop"]).toContain(info.device);
    expect(request?.headers.get("Authorization")).toBeNull();
  });

  it("keeps the same device id across calls and stores it", async () => {
    const server = mockApi({ "GET /health": { body: {} } });
    await api.get("/health");
    await api.get("/health");
    const [first, second] = server.requests;
    expect(first?.headers.get("X-Device-ID")).toBe(second?.headers.get("X-Device-ID"));
    expect(localStorage.getItem("turnout_device_id")).toBe(first?.headers.get("X-Device-ID"));
  });

  it("attaches the stored token as a bearer token", async () => {
    const token = makeToken();
    localStorage.setItem("turnout_token", token);
    const server = mockApi({ "GET /auth/profile": { body: { success: true } } });
    await api.get("/auth/profile");
    expect(server.requests[0]?.headers.get("Authorization")).toBe(`Bearer ${token}`);
  });

  it("sends JSON bodies and query parameters", async () => {
    const server = mockApi({ "POST /things": { status: 201, body: { success: true } } });
    await api.post("/things", { a: 1 }, { query: { limit: 5, skip: undefined } });
    expect(server.requests[0]?.body).toEqual({ a: 1 });
    expect(server.requests[0]?.query.toString()).toBe("limit=5");
    expect(server.requests[0]?.headers.get("Content-Type")).toBe("application/json");
  });

  it("turns a non-2xx reply into an ApiError with the server's message and type", async () => {
    mockApi({
      "POST /auth/request-otp": {
        status: 404,
        body: { success: false, message: "No such user", errorType: "user_not_found" },
      },
    });
    const error = await caught(api.post("/auth/request-otp", { phone: "+61412345678" }));
    expect(error.status).toBe(404);
    expect(error.errorType).toBe("user_not_found");
    expect(error.message).toBe("No such user");
    expect(error.body).toMatchObject({ success: false });
  });

  it("falls back to the body's error field and to api_error", async () => {
    mockApi({
      "GET /postcode/lookup/9999": { status: 404, body: { success: false, error: "Location not found" } },
    });
    const error = await caught(api.get("/postcode/lookup/9999"));
    expect(error.message).toBe("Location not found");
    expect(error.errorType).toBe("api_error");
  });

  it("notifies the app once when the session ended (401)", async () => {
    mockApi({ "GET /auth/profile": { status: 401, body: { success: false, message: "Unauthorized" } } });
    const { notices, stop } = collectNotices();
    await caught(api.get("/auth/profile"));
    await caught(api.get("/auth/profile"));
    stop();
    expect(notices).toEqual([{ kind: "expired", message: MESSAGES.SESSION_EXPIRED }]);
  });

  it("does not notify a 401 for calls that opt out (sign-in calls)", async () => {
    mockApi({ "POST /auth/verify-otp": { status: 401, body: { success: false, message: "Bad code" } } });
    const { notices, stop } = collectNotices();
    const error = await caught(api.post("/auth/verify-otp", {}, { ignoreUnauthorized: true }));
    stop();
    expect(error.status).toBe(401);
    expect(notices).toEqual([]);
  });

  it.each([
    ["logged_out_by_admin", { kind: "kicked", message: MESSAGES.LOGGED_OUT_BY_ADMIN }],
    ["terminated", { kind: "kicked", message: MESSAGES.SESSION_INVALID }],
    ["invalid", { kind: "expired", message: MESSAGES.SESSION_INVALID }],
    ["expired", { kind: "expired", message: MESSAGES.SESSION_EXPIRED }],
  ])("reads the 401 reason %s into the dialog's kind and text", async (reason, notice) => {
    mockApi({
      "GET /auth/profile": { status: 401, body: { success: false, errorType: "unauthorized", reason } },
    });
    const { notices, stop } = collectNotices();
    await caught(api.get("/auth/profile"));
    stop();
    expect(notices).toEqual([notice]);
  });

  it("shows the general not-authorized notice for 403 unless the caller handles it", async () => {
    mockApi({ "GET /alerts/5": { status: 403, body: { success: false, message: "Not your agency" } } });
    const { notices, stop } = collectNotices();
    await caught(api.get("/alerts/5", { handlesForbidden: true }));
    expect(notices).toEqual([]);
    await caught(api.get("/alerts/5"));
    stop();
    expect(notices).toEqual([{ kind: "forbidden", message: MESSAGES.NOT_AUTHORIZED }]);
  });

  it("reads retryAfter for a 429 from the Retry-After header", async () => {
    mockApi({
      "POST /auth/request-otp": {
        status: 429,
        headers: { "Retry-After": "120" },
        body: { success: false, errorType: "rate_limited", message: "Slow down", retryAfter: 999 },
      },
    });
    const error = await caught(api.post("/auth/request-otp", {}));
    expect(error.retryAfter).toBe(120);
    expect(error.errorType).toBe("rate_limited");
  });

  it("reads retryAfter for a 429 from the body when there is no header", async () => {
    mockApi({
      "POST /auth/request-otp": {
        status: 429,
        body: { success: false, errorType: "rate_limited", retryAfter: 300 },
      },
    });
    const error = await caught(api.post("/auth/request-otp", {}));
    expect(error.retryAfter).toBe(300);
  });

  it("gives up after 30 seconds with a network_error", async () => {
    vi.useFakeTimers();
    hangingFetch();
    const pending = caught(api.get("/alerts/search"));
    await vi.advanceTimersByTimeAsync(REQUEST_TIMEOUT_MS - 1);
    let settled = false;
    void pending.then(() => {
      settled = true;
    });
    await Promise.resolve();
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    const error = await pending;
    expect(error.errorType).toBe("network_error");
    expect(error.status).toBe(0);
    expect(error.message).toMatch(/timed out/i);
  });

  it("maps a failed connection to network_error", async () => {
    vi.stubGlobal("fetch", vi.fn().mockRejectedValue(new TypeError("Failed to fetch")));
    const error = await caught(api.get("/health"));
    expect(error.errorType).toBe("network_error");
  });

  describe("an answer asked for early (fetchEarly)", () => {
    it("is taken by the first GET of the same address instead of asking again, once", async () => {
      localStorage.setItem("turnout_token", makeToken());
      const server = mockApi({ "GET /alerts/search": { body: { data: [1] } } });
      fetchEarly("/alerts/search", { limit: 50, view: "units", search: undefined });
      await expect(api.get("/alerts/search", { query: { limit: 50, view: "units" } })).resolves.toEqual({
        data: [1],
      });
      expect(server.callsTo("GET /alerts/search")).toHaveLength(1);
      expect(server.requests[0]?.headers.get("X-Device-ID")).toMatch(/^[0-9a-f]{32,64}$/);
      await api.get("/alerts/search", { query: { limit: 50, view: "units" } });
      expect(server.callsTo("GET /alerts/search")).toHaveLength(2);
    });

    it("is not taken by another address, another method or another session's call", async () => {
      localStorage.setItem("turnout_token", makeToken(3600));
      const server = mockApi({ "GET /alerts/search": { body: {} }, "POST /alerts/search": { body: {} } });
      fetchEarly("/alerts/search", { limit: 50 });
      await api.get("/alerts/search", { query: { limit: 20 } });
      await api.post("/alerts/search", {}, { query: { limit: 50 } });
      localStorage.setItem("turnout_token", makeToken(7200));
      await api.get("/alerts/search", { query: { limit: 50 } });
      expect(server.callsTo("GET /alerts/search")).toHaveLength(3);
    });

    it("raises its session notice only when the screen reads it, as its own call would", async () => {
      mockApi({ "GET /alerts/search": { status: 401, body: { success: false, reason: "terminated" } } });
      const { notices, stop } = collectNotices();
      fetchEarly("/alerts/search");
      await new Promise((r) => setTimeout(r, 10));
      expect(notices).toEqual([]);
      const error = await caught(api.get("/alerts/search"));
      stop();
      expect(error.status).toBe(401);
      expect(notices).toEqual([{ kind: "kicked", message: MESSAGES.SESSION_INVALID }]);
    });

    it("asks again when the early request got no answer", async () => {
      let calls = 0;
      mockApi({
        "GET /alerts/search": () => {
          calls += 1;
          if (calls === 1) throw new TypeError("Failed to fetch");
          return { body: { ok: true } };
        },
      });
      fetchEarly("/alerts/search");
      await expect(api.get("/alerts/search")).resolves.toEqual({ ok: true });
      expect(calls).toBe(2);
    });
  });
});
