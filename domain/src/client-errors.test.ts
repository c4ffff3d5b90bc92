import { describe, expect, it } from "vitest";
import { z } from "zod/mini";
import { CLIENT_ERROR_MESSAGE_MAX, CLIENT_ERROR_STACK_MAX, clientErrorReport } from "./client-errors.js";
import { clientErrorReportSchema } from "./client-errors-schema.js";

const where = { path: "/admin?tab=users#top", release: "index-BVruBOZs.js" };

describe("clientErrorReport", () => {
  it("names the error, keeps its stack and the page's path without its query", () => {
    const error = new TypeError("x is undefined");
    const report = clientErrorReport(error, "render", where);
    expect(report).toEqual({
      kind: "render",
      message: "TypeError: x is undefined",
      stack: error.stack,
      path: "/admin",
      release: "index-BVruBOZs.js",
    });
    expect(z.safeParse(clientErrorReportSchema, report).success).toBe(true);
  });

  it("cuts every field to what the server takes, however long", () => {
    const error = new Error("m".repeat(5_000));
    error.stack = "s".repeat(50_000);
    const report = clientErrorReport(error, "error", {
      path: `/${"p".repeat(500)}`,
      release: "r".repeat(500),
    });
    expect(report.message).toHaveLength(CLIENT_ERROR_MESSAGE_MAX);
    expect(report.stack).toHaveLength(CLIENT_ERROR_STACK_MAX);
    expect(z.safeParse(clientErrorReportSchema, report).success).toBe(true);
  });

  it("reports what was thrown when it is not an Error, and never an empty message", () => {
    expect(clientErrorReport("plain text", "unhandled_rejection", where).message).toBe("plain text");
    expect(clientErrorReport({ code: 7 }, "unhandled_rejection", where).message).toBe('{"code":7}');
    expect(clientErrorReport(undefined, "error", where).message).toBe("undefined");
    expect(clientErrorReport(new Error(""), "error", where).message).toBe("(no message)");
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    expect(clientErrorReport(circular, "error", where).message).toBe("[object Object]");
  });
});

describe("clientErrorReportSchema", () => {
  it("refuses an unknown kind, an empty message and fields past their limits", () => {
    const ok = { kind: "error", message: "m", path: "/", release: "r" };
    expect(z.safeParse(clientErrorReportSchema, ok).success).toBe(true);
    for (const bad of [
      { ...ok, kind: "crash" },
      { ...ok, message: "" },
      { ...ok, message: "m".repeat(CLIENT_ERROR_MESSAGE_MAX + 1) },
      { ...ok, stack: "s".repeat(CLIENT_ERROR_STACK_MAX + 1) },
      { ...ok, path: "/".repeat(201) },
      { kind: "error", message: "m" },
    ])
      expect(z.safeParse(clientErrorReportSchema, bad).success, JSON.stringify(bad).slice(0, 80)).toBe(false);
  });
});
