import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, type TestApp } from "../../test/build-app.js";
import { DatabaseReachability, isConnectionFailure, markConnectFailure } from "./reachability.js";

/** An error as node-postgres raises it for a message from the server. */
const pgError = (code: string, message = "server said no") => Object.assign(new Error(message), { code });
/** Drizzle's wrapper, whose message carries the query's parameters. */
const failedQuery = (cause: Error, params = "[]") =>
  Object.assign(new Error(`Failed query: select 1\nparams: ${params}`), {
    query: "select 1",
    params: [params],
    cause,
  });

describe("isConnectionFailure", () => {
  it("counts a lost or refused connection, also inside Drizzle's failed-query error", () => {
    for (const error of [
      new Error("Connection terminated unexpectedly"),
      new Error("Connection terminated due to connection timeout"),
      new Error("Client has encountered a connection error and is not queryable"),
      Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" }),
      pgError("57P01", "terminating connection due to administrator command"),
      pgError("57P02"),
      pgError("57P03", "the database system is starting up"),
      pgError("08006"),
      failedQuery(pgError("57P01")),
    ])
      expect(isConnectionFailure(error), error.message).toBe(true);
  });

  it("counts any failure to open a connection, whatever its code (a database not accepting connections)", () => {
    const refused = pgError("55000", 'database "x" is not currently accepting connections');
    expect(isConnectionFailure(refused)).toBe(false);
    markConnectFailure(refused);
    expect(isConnectionFailure(failedQuery(refused))).toBe(true);
  });

  it("does not count errors the database answered on a working connection", () => {
    for (const error of [
      pgError("23505"),
      pgError("22003"),
      pgError("57014", "canceling statement due to user request"),
      pgError("55000"),
      failedQuery(pgError("42883")),
      new Error("boom"),
    ])
      expect(isConnectionFailure(error), error.message).toBe(false);
  });
});

describe("DatabaseReachability", () => {
  const logged = () => {
    const lines: { msg: string; reason?: string; code?: string }[] = [];
    const reachability = new DatabaseReachability();
    reachability.useLogger(pino({ level: "info" }, { write: (l: string) => lines.push(JSON.parse(l)) }));
    return { reachability, lines };
  };

  it("logs an outage once when it begins and once when it ends, however many failures it has", () => {
    const { reachability, lines } = logged();
    for (let i = 0; i < 50; i++)
      reachability.failed(failedQuery(pgError("57P01", "terminating connection"), '{"text":"SECRET"}'));
    expect(reachability.reachable).toBe(false);
    reachability.answered();
    reachability.answered();
    expect(reachability.reachable).toBe(true);
    expect(lines.map((l) => l.msg)).toEqual([
      "database unreachable: requests are answered 503 until it is back",
      "database reachable again",
    ]);
    // The database's reason, not the failed query's parameters.
    expect(lines[0]).toMatchObject({ code: "57P01", reason: "terminating connection" });
    expect(JSON.stringify(lines)).not.toContain("SECRET");
  });

  it("ignores errors that are not about reaching the database", () => {
    const { reachability, lines } = logged();
    reachability.failed(pgError("23505"));
    expect(reachability.reachable).toBe(true);
    expect(lines).toEqual([]);
  });

  it("takes connections dying just after a recovery as the same disruption, not a new outage", () => {
    const { reachability, lines } = logged();
    reachability.failed(pgError("57P01"));
    reachability.answered();
    reachability.failed(new Error("Connection terminated unexpectedly"));
    reachability.answered();
    expect(lines.map((l) => l.msg)).toEqual([
      "database unreachable: requests are answered 503 until it is back",
      "database reachable again",
    ]);
  });
});

describe("a request while the database is unreachable", () => {
  let app: TestApp;
  const lines: string[] = [];

  beforeAll(async () => {
    app = await buildTestApp(
      { LOG_LEVEL: "info" },
      { logStream: { write: (line: string) => lines.push(line) } },
    );
    app.get("/api/test-lost-connection", { config: { access: "public" } }, async () => {
      throw failedQuery(pgError("57P01", "terminating connection due to administrator command"));
    });
  });
  afterAll(() => app.cleanup());

  it("is answered 503 with Retry-After, and the outage is logged once, not per request", async () => {
    for (let i = 0; i < 3; i++) {
      const res = await app.inject({ method: "GET", url: "/api/test-lost-connection" });
      expect(res.statusCode).toBe(503);
      expect(res.headers["retry-after"]).toBe("5");
      expect(res.json()).toEqual({
        success: false,
        message: "The database is unreachable. Please try again in a few seconds.",
        errorType: "service_unavailable",
        retryAfter: 5,
      });
    }
    expect(lines.filter((l) => l.includes("database unreachable"))).toHaveLength(1);
    expect(lines.filter((l) => l.includes("unhandled error"))).toEqual([]);
  });
});
