import { act, screen, waitFor, within } from "@testing-library/react";
import { HEALTH_ALL_OK_TEXT, MESSAGES } from "@turnout/domain";
import {
  adminRoutes,
  adminUser,
  DESKTOP_UA,
  makeDashboard,
  makeLogs,
  makeMetrics,
} from "../../../testing/admin/admin-fixtures";
import { type MockRoute, mockApi, type RecordedRequest } from "../../../testing/mock-api";
import { renderApp } from "../../../testing/render-app";
import { storeSession } from "../../../testing/session-fixtures";

// The dashboard and the console are lazy chunks: on a busy machine their first load takes seconds.

function openMonitor(routes: Record<string, MockRoute> = {}, options: { fakeTimers?: boolean } = {}) {
  vi.spyOn(navigator, "userAgent", "get").mockReturnValue(DESKTOP_UA);
  const server = mockApi(adminRoutes(routes));
  storeSession({ user: adminUser });
  const rendered = renderApp(
    "/admin/system",
    options.fakeTimers ? { advanceTimers: (ms) => vi.advanceTimersByTime(ms) } : {},
  );
  return { server, ...rendered };
}

const ok = (data: unknown, extra: Record<string, unknown> = {}) => ({
  body: { success: true, data, ...extra },
});

function card(name: string): HTMLElement {
  return screen.getByRole("region", { name });
}

async function findCard(name: string): Promise<HTMLElement> {
  return screen.findByRole("region", { name });
}

describe("system monitor figures", { timeout: 20_000 }, () => {
  it("shows this server's Node version, the database status and the other cards' figures", async () => {
    openMonitor();
    const application = await findCard("Application");
    await waitFor(() => expect(within(application).getByText("v20.18.0")).toBeInTheDocument());
    const database = card("Database");
    expect(within(database).getAllByText("Connected").length).toBeGreaterThan(0);
    expect(within(database).getByText("PGlite (embedded)")).toBeInTheDocument();
    expect(within(database).getByText("24.0 MB")).toBeInTheDocument();
    expect(within(card("Cache store")).getByText(/No Redis configured/)).toBeInTheDocument();
    expect(within(card("System")).getByText("3d 4h 12m")).toBeInTheDocument();
    expect(within(card("Sessions")).getByText("14")).toBeInTheDocument();
    expect(within(card("SMS service")).getByText("outbox")).toBeInTheDocument();
    const media = card("Media queue");
    expect(await within(media).findByText("Available")).toBeInTheDocument();
    expect(within(media).getByText("1 of 1 at a time")).toBeInTheDocument();
    expect(within(media).getByText("3 min")).toBeInTheDocument();
    const messages = card("Messages");
    expect(within(messages).getByText("≈ 128,450")).toBeInTheDocument();
    // Top 5 agencies only.
    expect(within(messages).getByText("Life Saving Victoria")).toBeInTheDocument();
    expect(within(messages).queryByText("Other")).not.toBeInTheDocument();
  });

  it("draws the first 4 CPU cores and colours the bars by the SPEC 9 thresholds", async () => {
    openMonitor({
      "GET /admin/system/metrics": ok(makeMetrics({ cpu: 85, memory: 85 })),
    });
    const system = await findCard("System");
    await waitFor(() =>
      expect(within(system).getByRole("progressbar", { name: "CPU usage" })).toHaveAttribute(
        "data-color",
        "error",
      ),
    );
    expect(within(system).getByRole("progressbar", { name: "Memory" })).toHaveAttribute(
      "data-color",
      "warning",
    );
    expect(within(system).getByRole("progressbar", { name: "Core 3" })).toHaveAttribute(
      "data-color",
      "success",
    );
    expect(within(system).queryByRole("progressbar", { name: "Core 4" })).not.toBeInTheDocument();
    expect(within(card("SMS service")).getByRole("progressbar", { name: "Success rate" })).toHaveAttribute(
      "data-color",
      "success",
    );
    expect(within(card("Database")).getByRole("progressbar", { name: "Cache hit ratio" })).toHaveAttribute(
      "data-color",
      "success",
    );
  });
});

describe("health card", { timeout: 20_000 }, () => {
  it("says 'All systems operational' with the Development badge when there is nothing wrong", async () => {
    openMonitor();
    const health = await findCard("System Health");
    expect(await within(health).findByText(HEALTH_ALL_OK_TEXT)).toBeInTheDocument();
    expect(within(health).getByText("Development")).toBeInTheDocument();
    expect(within(health).getByText("Healthy")).toBeInTheDocument();
    // One instance without Redis: information, and still healthy (issue 26).
    const info = within(health).getByRole("heading", { name: "Information" }).nextElementSibling;
    expect(info).toHaveTextContent("Single instance (no Redis)");
    expect(within(health).queryByRole("heading", { name: "Warnings" })).not.toBeInTheDocument();
  });

  it("lists critical issues and warnings, with the overall status and the Production badge", async () => {
    const health = {
      overall: "critical",
      issues: ["Database is not connected"],
      warnings: ["CPU usage is high (85%)"],
      environment: "production",
    };
    openMonitor({ "GET /admin/system/dashboard": ok(makeDashboard({ health })) });
    const healthCard = await findCard("System Health");
    expect(await within(healthCard).findByText("Critical")).toBeInTheDocument();
    expect(within(healthCard).getByText("Production")).toBeInTheDocument();
    const issues = within(healthCard).getByRole("heading", { name: "Critical issues" }).nextElementSibling;
    expect(issues).toHaveTextContent("Database is not connected");
    const warnings = within(healthCard).getByRole("heading", { name: "Warnings" }).nextElementSibling;
    expect(warnings).toHaveTextContent("CPU usage is high (85%)");
    expect(within(healthCard).queryByText(HEALTH_ALL_OK_TEXT)).not.toBeInTheDocument();
  });

  it("shows a skeleton until the health arrives", async () => {
    openMonitor({ "GET /admin/system/dashboard": () => new Promise<never>(() => {}) });
    const health = await findCard("System Health");
    expect(within(health).getByRole("status", { name: "Loading System Health" })).toBeInTheDocument();
    expect(within(health).queryByText(HEALTH_ALL_OK_TEXT)).not.toBeInTheDocument();
  });

  it("says 'Access Denied' in the SPEC 6 words when the server refuses a non-admin", async () => {
    const refuse = { status: 403, body: { success: false, message: "Admin only", errorType: "forbidden" } };
    openMonitor({
      "GET /admin/system/dashboard": refuse,
      "GET /admin/system/metrics": refuse,
      "GET /admin/system/sessions": refuse,
      "GET /admin/system/messages": refuse,
      "GET /admin/system/logs": refuse,
    });
    expect(await screen.findByText(MESSAGES.SYSTEM_MONITOR_DENIED)).toBeInTheDocument();
    expect(screen.getByText(MESSAGES.SYSTEM_MONITOR_ADMIN_REQUIRED)).toBeInTheDocument();
    expect(screen.queryByRole("region", { name: "System Health" })).not.toBeInTheDocument();
    expect(screen.queryByText(MESSAGES.NOT_AUTHORIZED)).not.toBeInTheDocument();
  });
});

describe("refresh", { timeout: 20_000 }, () => {
  /** Let fetches, lazy chunks and React run without moving the fake clock. */
  async function settle(rounds = 5) {
    for (let round = 0; round < rounds; round += 1) {
      await act(async () => {
        await vi.advanceTimersByTimeAsync(0);
        await new Promise((resolve) => setImmediate(resolve));
      });
    }
  }

  /**
   * Settles until `check` holds, for up to 10 s of real time (performance.now is not faked): the
   * console's lazy chunk loads in real time, seconds on a machine compiling it for the first time.
   */
  async function settleUntil(check: () => boolean) {
    const deadline = performance.now() + 10_000;
    while (!check() && performance.now() < deadline) await settle(1);
    expect(check()).toBe(true);
  }

  function timed(times: Map<string, number[]>, route: MockRoute): MockRoute {
    return async (request: RecordedRequest) => {
      const list = times.get(request.path) ?? [];
      list.push(Date.now());
      times.set(request.path, list);
      return typeof route === "function" ? route(request) : route;
    };
  }

  it("loads the cards 0, 100, 200, 300 and 400 ms apart, then every 60 s, keeping stale figures on a failure", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date"] });
    const times = new Map<string, number[]>();
    let metricsFail = false;
    const routes = adminRoutes();
    const monitorPaths = ["dashboard", "metrics", "sessions", "messages", "logs"].map(
      (name) => `GET /admin/system/${name}`,
    );
    for (const key of monitorPaths) routes[key] = timed(times, routes[key]!);
    routes["GET /admin/system/metrics"] = timed(times, () =>
      metricsFail
        ? { status: 500, body: { success: false, message: "boom", errorType: "internal" } }
        : ok(makeMetrics({ node: "v20.19.1" })),
    );
    openMonitor(routes, { fakeTimers: true });

    await settleUntil(() => (times.get("/admin/system/dashboard") ?? []).length > 0);
    const start = times.get("/admin/system/dashboard")![0]!;
    await settleUntil(() => screen.queryByRole("region", { name: "System" }) !== null);
    expect(times.get("/admin/system/metrics")).toBeUndefined();

    for (const [name, at] of [
      ["metrics", 100],
      ["sessions", 200],
      ["messages", 300],
      ["logs", 400],
    ] as const) {
      await act(() => vi.advanceTimersByTimeAsync(start + at - Date.now() - 1));
      await settle();
      expect(times.get(`/admin/system/${name}`)).toBeUndefined();
      await act(() => vi.advanceTimersByTimeAsync(1));
      await settle();
      expect(times.get(`/admin/system/${name}`)).toEqual([start + at]);
    }
    // One load of each for the first minute (the prefetched dashboard counts as the health's).
    expect(times.get("/admin/system/dashboard")).toHaveLength(1);
    await settleUntil(() => within(card("Application")).queryByText("v20.19.1") !== null);

    metricsFail = true;
    await act(() => vi.advanceTimersByTimeAsync(60_000));
    await settle();
    expect(times.get("/admin/system/metrics")).toEqual([start + 100, start + 60_100]);
    expect(times.get("/admin/system/dashboard")).toHaveLength(2);
    expect(times.get("/admin/system/logs")).toHaveLength(2);
    const application = card("Application");
    expect(within(application).getByText(/Stale: could not refresh\. Figures from/)).toBeInTheDocument();
    expect(within(application).getByText("v20.19.1")).toBeInTheDocument();
    expect(within(card("System")).getByText(/Stale: could not refresh/)).toBeInTheDocument();
    expect(within(card("Sessions")).queryByText(/Stale/)).not.toBeInTheDocument();
    expect(screen.queryByRole("alert", { name: /error/i })).not.toBeInTheDocument();

    metricsFail = false;
    await act(() => vi.advanceTimersByTimeAsync(60_000));
    await settle();
    expect(within(card("Application")).queryByText(/Stale/)).not.toBeInTheDocument();
  });
});

describe("system logs", { timeout: 20_000 }, () => {
  function logRoutes(state: { cleared: boolean }) {
    return {
      "GET /admin/system/dashboard": ok({ ...makeDashboard(), logs: { data: makeLogs(50), total: 120 } }),
      "GET /admin/system/logs": (request: RecordedRequest) => {
        if (state.cleared) return ok([], { total: 0 });
        const level = request.query.get("level");
        if (level) return ok(makeLogs(2, level), { total: 2 });
        return ok(makeLogs(50), { total: 120 });
      },
      "POST /admin/system/logs/clear": () => {
        state.cleared = true;
        return ok({ cleared: 120 });
      },
    };
  }

  it("shows the first 50 of all logs and filters them by level", async () => {
    const { server, user } = openMonitor(logRoutes({ cleared: false }));
    const logs = await findCard("System logs");
    expect(await within(logs).findByText("Showing first 50 of 120 logs")).toBeInTheDocument();
    expect(
      within(within(logs).getByRole("list", { name: "Log entries" })).getAllByRole("listitem"),
    ).toHaveLength(50);
    await waitFor(() => expect(server.callsTo("GET /admin/system/logs")[0]?.query.get("limit")).toBe("50"));

    await user.click(within(logs).getByRole("button", { name: "Error" }));
    expect(await within(logs).findByText("2 logs")).toBeInTheDocument();
    expect(server.callsTo("GET /admin/system/logs").at(-1)?.query.get("level")).toBe("error");
    const entries = within(within(logs).getByRole("list", { name: "Log entries" })).getAllByRole("listitem");
    expect(entries).toHaveLength(2);
    for (const entry of entries) expect(entry).toHaveTextContent("ERROR");
    expect(within(logs).getByRole("button", { name: "Error" })).toHaveAttribute("aria-pressed", "true");
  });

  it("clears the logs only after a confirmation", async () => {
    const { server, user } = openMonitor(logRoutes({ cleared: false }));
    const logs = await findCard("System logs");
    await within(logs).findByText("Showing first 50 of 120 logs");

    await user.click(within(logs).getByRole("button", { name: "Clear logs" }));
    const dialog = await screen.findByRole("alertdialog", { name: "Clear all system logs?" });
    await user.click(within(dialog).getByRole("button", { name: "Cancel" }));
    await waitFor(() => expect(screen.queryByRole("alertdialog")).not.toBeInTheDocument());
    expect(server.callsTo("POST /admin/system/logs/clear")).toHaveLength(0);
    expect(within(logs).getByText("Showing first 50 of 120 logs")).toBeInTheDocument();

    await user.click(within(logs).getByRole("button", { name: "Clear logs" }));
    const again = await screen.findByRole("alertdialog", { name: "Clear all system logs?" });
    await user.click(within(again).getByRole("button", { name: "Clear all logs" }));
    expect(await within(logs).findByText("Cleared 120 logs.")).toBeInTheDocument();
    expect(server.callsTo("POST /admin/system/logs/clear")).toHaveLength(1);
    expect(await within(logs).findByText("No log entries.")).toBeInTheDocument();
    expect(within(logs).getByText("0 logs")).toBeInTheDocument();
  });
});
