import { render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { AppProviders, createQueryClient } from "../../../app/providers";
import type { RecordedRequest } from "../../../testing/mock-api";
import { mockApi } from "../../../testing/mock-api";
import { GroupingTab } from "./grouping-tab";

// Dialog journeys type a lot; a loaded machine needs more than the default 5 s.
vi.setConfig({ testTimeout: 20_000 });

function pattern(overrides: Record<string, unknown> = {}) {
  return {
    id: 1,
    name: "Ambulance case",
    pattern: "CASE (\\d{6})",
    description: "AV case numbers",
    priority: 10,
    is_active: true,
    created_at: "2026-11-01T00:00:00.000Z",
    updated_at: "2026-11-01T00:00:00.000Z",
    ...overrides,
  };
}

const settings = { grouping_enabled: true, group_window_hours: 24, duplicate_window_seconds: 120 };

function fakeServer() {
  const state = { patterns: [pattern()], settings: { ...settings } };
  const server = mockApi({
    "GET /message-grouping/config": {
      body: {
        success: true,
        data: {
          settings,
          built_in_patterns: ["F followed by 6 or more digits"],
          never_grouped: ["administrative messages"],
        },
      },
    },
    "GET /message-grouping/patterns": () => ({ body: { success: true, data: state.patterns } }),
    "POST /message-grouping/patterns": (request) => {
      const created = pattern({ id: 2, ...(request.body as object) });
      state.patterns = [...state.patterns, created];
      return { status: 201, body: { success: true, data: created } };
    },
    "PUT /message-grouping/patterns/*": (request) => {
      const id = Number(request.path.split("/").at(-1));
      state.patterns = state.patterns.map((p) => (p.id === id ? { ...p, ...(request.body as object) } : p));
      return { body: { success: true, data: state.patterns.find((p) => p.id === id) } };
    },
    "DELETE /message-grouping/patterns/*": (request) => {
      const id = Number(request.path.split("/").at(-1));
      state.patterns = state.patterns.filter((p) => p.id !== id);
      return { body: { success: true, message: "Pattern deleted." } };
    },
    "GET /message-grouping/settings": () => ({ body: { success: true, data: state.settings } }),
    "PUT /message-grouping/settings/*": (request: RecordedRequest) => {
      const key = request.path.split("/").at(-1)!;
      state.settings = { ...state.settings, [key]: (request.body as { value: unknown }).value };
      return { body: { success: true, data: state.settings } };
    },
    "POST /message-grouping/test-extraction": {
      body: {
        success: true,
        data: {
          job_number: "F261234567",
          matched_by: "built-in",
          type: "emergency",
          display_text: "ALERT F261234567 STRUC1 SHED FIRE",
        },
      },
    },
  });
  return Object.assign(server, { state });
}

function renderTab() {
  const user = userEvent.setup({ delay: null });
  render(
    <AppProviders queryClient={createQueryClient()}>
      <GroupingTab />
    </AppProviders>,
  );
  return user;
}

async function patternRows() {
  const table = await screen.findByRole("table", { name: "Patterns" });
  return within(table).getAllByRole("row").slice(1);
}

describe("GroupingTab", () => {
  it("shows the patterns, the settings and the built-in rules from the server", async () => {
    fakeServer();
    renderTab();

    const [row] = await patternRows();
    expect(within(row!).getByText("Ambulance case")).toBeInTheDocument();
    expect(within(row!).getByText("CASE (\\d{6})")).toBeInTheDocument();
    expect(within(row!).getByText("10")).toBeInTheDocument();
    expect(within(row!).getByRole("switch", { name: "Ambulance case enabled" })).toBeChecked();
    expect(await screen.findByRole("switch", { name: "Group messages by job number" })).toBeChecked();
    expect(screen.getByRole("textbox", { name: "Group window" })).toHaveValue("24");
    expect(screen.getByRole("textbox", { name: "Duplicate window" })).toHaveValue("120");
    expect(await screen.findByText(/F followed by 6 or more digits/)).toBeInTheDocument();
  });

  it("creates a pattern after checking the form, and shows the server's refusal", async () => {
    const server = fakeServer();
    server.on("POST /message-grouping/patterns", {
      status: 400,
      body: {
        success: false,
        message: "The pattern does not compile: bad group",
        errorType: "validation_error",
      },
    });
    const user = renderTab();
    await patternRows();

    await user.click(screen.getByRole("button", { name: "New pattern" }));
    const dialog = await screen.findByRole("dialog", { name: "New Pattern" });
    await user.click(within(dialog).getByRole("button", { name: "Save" }));
    expect(within(dialog).getByText("A name is required.")).toBeInTheDocument();
    expect(server.callsTo("POST /message-grouping/patterns")).toHaveLength(0);

    await user.type(within(dialog).getByRole("textbox", { name: /Name/ }), "SES job");
    await user.click(within(dialog).getByRole("textbox", { name: /Pattern/ }));
    await user.paste("(S\\d{9}");
    await user.clear(within(dialog).getByRole("textbox", { name: "Priority" }));
    await user.type(within(dialog).getByRole("textbox", { name: "Priority" }), "5");
    await user.click(within(dialog).getByRole("button", { name: "Save" }));
    expect(await within(dialog).findByText("The pattern does not compile: bad group")).toBeInTheDocument();

    server.on("POST /message-grouping/patterns", (request) => {
      const created = pattern({ id: 2, ...(request.body as object) });
      server.state.patterns = [...server.state.patterns, created];
      return { status: 201, body: { success: true, data: created } };
    });
    await user.click(within(dialog).getByRole("button", { name: "Save" }));
    await waitFor(() => expect(screen.queryByRole("dialog", { name: "New Pattern" })).toBeNull());
    expect(server.callsTo("POST /message-grouping/patterns").at(-1)?.body).toEqual({
      name: "SES job",
      pattern: "(S\\d{9}",
      description: null,
      priority: 5,
      is_active: true,
    });
    expect(await screen.findByRole("cell", { name: "SES job" })).toBeInTheDocument();
  });

  it("edits a pattern's priority", async () => {
    const server = fakeServer();
    const user = renderTab();
    await patternRows();

    await user.click(screen.getByRole("button", { name: "Edit Ambulance case" }));
    const dialog = await screen.findByRole("dialog", { name: "Edit Pattern" });
    expect(within(dialog).getByRole("textbox", { name: /Pattern/ })).toHaveValue("CASE (\\d{6})");
    await user.clear(within(dialog).getByRole("textbox", { name: "Priority" }));
    await user.type(within(dialog).getByRole("textbox", { name: "Priority" }), "3");
    await user.click(within(dialog).getByRole("button", { name: "Save" }));

    await waitFor(() =>
      expect(server.callsTo("PUT /message-grouping/patterns/1").map((call) => call.body)).toEqual([
        {
          name: "Ambulance case",
          pattern: "CASE (\\d{6})",
          description: "AV case numbers",
          priority: 3,
          is_active: true,
        },
      ]),
    );
    const [row] = await patternRows();
    await waitFor(() => expect(within(row!).getByText("3")).toBeInTheDocument());
  });

  it("disables a pattern with its switch", async () => {
    const server = fakeServer();
    const user = renderTab();
    await patternRows();

    await user.click(screen.getByRole("switch", { name: "Ambulance case enabled" }));

    await waitFor(() =>
      expect(server.callsTo("PUT /message-grouping/patterns/1").map((call) => call.body)).toEqual([
        { is_active: false },
      ]),
    );
    await waitFor(() =>
      expect(screen.getByRole("switch", { name: "Ambulance case enabled" })).not.toBeChecked(),
    );
  });

  it("deletes a pattern only after confirmation", async () => {
    const server = fakeServer();
    const user = renderTab();
    await patternRows();

    await user.click(screen.getByRole("button", { name: "Delete Ambulance case" }));
    const dialog = await screen.findByRole("alertdialog", { name: "Delete pattern?" });
    expect(server.callsTo("DELETE /message-grouping/patterns/1")).toHaveLength(0);
    await user.click(within(dialog).getByRole("button", { name: "Delete" }));

    await waitFor(() => expect(server.callsTo("DELETE /message-grouping/patterns/1")).toHaveLength(1));
    expect(await screen.findByText("No patterns of your own yet.")).toBeInTheDocument();
  });

  it("updates grouping on/off and the group window", async () => {
    const server = fakeServer();
    const user = renderTab();

    await user.click(await screen.findByRole("switch", { name: "Group messages by job number" }));
    await waitFor(() =>
      expect(screen.getByRole("switch", { name: "Group messages by job number" })).not.toBeChecked(),
    );

    const hours = screen.getByRole("textbox", { name: "Group window" });
    await user.clear(hours);
    await user.type(hours, "abc");
    expect(screen.getByText("A whole number of hours from 0 to 720.")).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Save group window" })).toBeDisabled();
    await user.clear(hours);
    await user.type(hours, "6");
    await user.click(screen.getByRole("button", { name: "Save group window" }));

    await waitFor(() =>
      expect(server.callsTo("PUT /message-grouping/settings/group_window_hours").map((c) => c.body)).toEqual([
        { value: 6 },
      ]),
    );
    expect(server.callsTo("PUT /message-grouping/settings/grouping_enabled").map((c) => c.body)).toEqual([
      { value: false },
    ]);
  });

  it("tests a message and shows the job number and what found it", async () => {
    const server = fakeServer();
    const user = renderTab();

    await user.click(await screen.findByRole("textbox", { name: "Pager message" }));
    await user.paste("@@ALERT F261234567 STRUC1 SHED FIRE");
    await user.click(screen.getByRole("button", { name: "Test" }));

    const result = await screen.findByRole("status", { name: "Test result" });
    expect(within(result).getByText("Job number: F261234567")).toBeInTheDocument();
    expect(within(result).getByText("Found by: the built-in job-number patterns")).toBeInTheDocument();
    expect(server.callsTo("POST /message-grouping/test-extraction")[0]?.body).toEqual({
      message: "@@ALERT F261234567 STRUC1 SHED FIRE",
    });

    server.on("POST /message-grouping/test-extraction", {
      body: {
        success: true,
        data: {
          job_number: "123456",
          matched_by: "Ambulance case",
          type: "standard",
          display_text: "CASE 123456",
        },
      },
    });
    await user.click(screen.getByRole("button", { name: "Test" }));
    expect(await within(result).findByText("Found by: pattern “Ambulance case”")).toBeInTheDocument();
    expect(within(result).getByText("Job number: 123456")).toBeInTheDocument();
  });
});
