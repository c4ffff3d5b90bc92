import { render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { AppProviders, createQueryClient } from "../../../app/providers";
import { type MockApi, type MockReply, mockApi, type RecordedRequest } from "../../../testing/mock-api";
import { UsersTab } from "./users-tab";

const agencies = [
  { id: 1, name: "Unmapped Capcodes", code: "UNMAPPED", capcode_count: 4 },
  { id: 2, name: "Country Fire Authority", code: "CFA", capcode_count: 10 },
  { id: 3, name: "State Emergency Service", code: "SES", capcode_count: 5 },
];

type FakeUser = ReturnType<typeof makeUser>;

function makeUser(id: number, overrides: Record<string, unknown> = {}) {
  return {
    id,
    first_name: `First${id}`,
    last_name: `Last${id}`,
    phone: `+614${String(id).padStart(8, "0")}`,
    is_admin: false,
    is_active: true,
    is_verified: true,
    status: "active",
    max_sessions: null as number | null,
    active_sessions: 1,
    last_activity: null as string | null,
    created_at: "2026-11-01T00:00:00.000Z",
    agencies: [{ id: 2, name: "Country Fire Authority", code: "CFA" }],
    ...overrides,
  };
}

const jane = makeUser(1, {
  first_name: "Jane",
  last_name: "Smith",
  phone: "+61412345678",
  active_sessions: 2,
});
const omar = makeUser(2, {
  first_name: "Omar",
  last_name: "Haddad",
  phone: "+61498765432",
  is_active: false,
  status: "pending_review",
  active_sessions: 0,
  agencies: [],
});
const ruth = makeUser(3, { first_name: "Ruth", last_name: "Nguyen", is_admin: true, max_sessions: 5 });

const sessions = [
  {
    id: "5b1e6c1e-0000-4000-8000-000000000001",
    device_info: "Chrome on Android",
    ip_address: "203.0.113.7",
    created_at: "2026-11-20T01:00:00.000Z",
    last_activity: "2026-11-22T01:00:00.000Z",
  },
  {
    id: "5b1e6c1e-0000-4000-8000-000000000002",
    device_info: "Firefox on Windows",
    ip_address: "198.51.100.4",
    created_at: "2026-11-21T01:00:00.000Z",
    last_activity: "2026-11-22T02:00:00.000Z",
  },
];

const ok = (data: unknown): MockReply => ({ body: { success: true, data } });

/** A fake /api/admin/users keeping `users`; the list filters by `search` and `status` as the server does. */
function fakeServer(initial: FakeUser[]): MockApi {
  // Copies: a test's changes must not leak into the next test's users.
  const state = { users: initial.map((user) => structuredClone(user)) };
  const find = (request: RecordedRequest) =>
    state.users.find((user) => user.id === Number(request.path.split("/")[3]));
  const server = mockApi({
    "GET /admin/agencies": ok(agencies),
    "GET /admin/users": (request) => {
      const search = (request.query.get("search") ?? "").toLowerCase();
      const status = request.query.get("status");
      const matching = state.users.filter(
        (user) =>
          (!status || user.status === status) &&
          (!search || `${user.first_name} ${user.last_name} ${user.phone}`.toLowerCase().includes(search)),
      );
      const limit = Number(request.query.get("limit"));
      return { body: { success: true, data: matching.slice(0, limit), total: matching.length } };
    },
    "GET /admin/users/*": (request) => ok(request.path.endsWith("/units") ? [] : sessions),
    "GET /admin/agencies/*": ok([]),
    "POST /admin/users": (request) => {
      const body = request.body as Record<string, unknown>;
      const created = makeUser(100, { ...body, agencies: [] });
      state.users.push(created);
      return { status: 201, ...ok(created) };
    },
    "PATCH /admin/users/*": (request) => {
      const user = find(request);
      if (!user) return { status: 404, body: { success: false, message: "User not found" } };
      const isActive = (request.body as { is_active: boolean }).is_active;
      Object.assign(user, { is_active: isActive, status: isActive ? "active" : "inactive" });
      return ok(user);
    },
    "PUT /admin/users/*": (request) => {
      const user = find(request);
      if (!user) return { status: 404, body: { success: false, message: "User not found" } };
      const body = request.body as Record<string, unknown>;
      if (request.path.endsWith("/agencies")) {
        const ids = body.agency_ids as number[];
        user.agencies = agencies.filter((agency) => ids.includes(agency.id));
        return ok(user.agencies);
      }
      if (request.path.endsWith("/session-limits")) {
        user.max_sessions = body.max_sessions as number | null;
        return ok(user);
      }
      Object.assign(user, body);
      return ok(user);
    },
    "DELETE /admin/users/*": (request) => {
      state.users = state.users.filter((user) => user !== find(request));
      return { body: { success: true, message: "User deleted" } };
    },
    "POST /admin/users/*": (request) => {
      const body = request.body as { session_id?: string };
      return ok({ terminated: body.session_id ? 1 : sessions.length });
    },
    "POST /admin/users/pwa-banner/reset": (request) =>
      ok({ reset: (request.body as { user_ids: number[] }).user_ids.length }),
    "POST /admin/users/pwa-banner/reset-all": () => ok({ reset: state.users.length }),
  });
  return server;
}

// Journeys through dialogs type and click a lot; a loaded machine needs more than the default 5 s
// for a test and 1 s for a screen to update.
vi.setConfig({ testTimeout: 30_000 });

function renderTab(onError?: (message: string) => void) {
  const user = userEvent.setup({ delay: null });
  render(
    <AppProviders queryClient={createQueryClient()}>
      <UsersTab onError={onError} />
    </AppProviders>,
  );
  return { user };
}

const row = (name: string) => screen.getByRole("row", { name });
const dataRows = () =>
  within(screen.getByRole("table", { name: "Users" }))
    .getAllByRole("row")
    .slice(1);

describe("Users tab list", () => {
  it("shows the count and a row per user from the server, asking for up to 1000", async () => {
    const server = fakeServer([jane, omar, ruth]);
    renderTab();

    expect(await screen.findByText("3 users")).toBeInTheDocument();
    expect(dataRows()).toHaveLength(3);
    const janeRow = row("Jane Smith");
    expect(within(janeRow).getByText("+61412345678")).toBeInTheDocument();
    expect(within(janeRow).getByText("Active")).toBeInTheDocument();
    expect(within(janeRow).getByText("CFA")).toBeInTheDocument();
    expect(within(janeRow).getByText("2 / 2")).toBeInTheDocument();
    expect(within(row("Ruth Nguyen")).getByText("Admin")).toBeInTheDocument();
    expect(within(row("Ruth Nguyen")).getByText("1 / 5")).toBeInTheDocument();
    expect(within(row("Omar Haddad")).getByText("Pending review")).toBeInTheDocument();

    const request = server.callsTo("GET /admin/users")[0]!;
    expect(request.query.get("limit")).toBe("1000");
    expect(request.query.get("offset")).toBe("0");
  });

  it("searches on the server and shows only what it found", async () => {
    const server = fakeServer([jane, omar, ruth]);
    const { user } = renderTab();
    await screen.findByText("3 users");

    await user.type(screen.getByRole("textbox", { name: "Search users" }), "smith");
    expect(await screen.findByText("1 matching user")).toBeInTheDocument();
    expect(dataRows().map((tr) => tr.getAttribute("aria-label"))).toEqual(["Jane Smith"]);
    // One request for the whole word once typing pauses, not one per letter.
    const searches = server.callsTo("GET /admin/users").filter((r) => r.query.get("search"));
    expect(searches.map((r) => r.query.get("search"))).toEqual(["smith"]);
  });

  it("shows 1000 users a page at a time, never 1000 rows in the page", async () => {
    const many = Array.from({ length: 1000 }, (_, index) => makeUser(index + 1));
    fakeServer(many);
    const { user } = renderTab();

    expect(await screen.findByText("1000 users")).toBeInTheDocument();
    // Plain selectors here: role queries over a page of rows cost seconds on a busy machine.
    const bodyRows = () => document.querySelectorAll("tbody tr");
    expect(bodyRows().length).toBeGreaterThan(0);
    expect(bodyRows().length).toBeLessThanOrEqual(100);
    expect(screen.getByText("First1 Last1")).toBeInTheDocument();
    expect(screen.queryByText("First1000 Last1000")).not.toBeInTheDocument();

    await user.click(screen.getByRole("button", { name: "Go to next page" }));
    expect(screen.getByText("First51 Last51")).toBeInTheDocument();
    expect(screen.queryByText("First1 Last1")).not.toBeInTheDocument();
    expect(bodyRows().length).toBeLessThanOrEqual(100);
  });

  it("says so when the server has more users than it sent", async () => {
    mockApi({
      "GET /admin/users": { body: { success: true, data: [jane, ruth], total: 1500 } },
      "GET /admin/users/*": ok([]),
    });
    renderTab();
    expect(await screen.findByText("1500 users")).toBeInTheDocument();
    expect(screen.getByText(/Showing the first 2 of 1500/)).toBeInTheDocument();
  });

  it("shows a failed load with a Retry that asks again", async () => {
    const server = fakeServer([jane]);
    server.on("GET /admin/users", { status: 500, body: { success: false, message: "Database unavailable" } });
    const { user } = renderTab();
    expect(await screen.findByText("Database unavailable", {}, { timeout: 10_000 })).toBeInTheDocument();
    server.on("GET /admin/users", ok([jane]));
    await user.click(screen.getByRole("button", { name: "Retry" }));
    expect(await screen.findByRole("row", { name: "Jane Smith" })).toBeInTheDocument();
  });
});

describe("Users tab pending review", () => {
  it("counts pending accounts on the filter, filters to them, and activates one", async () => {
    const server = fakeServer([jane, omar, ruth]);
    const { user } = renderTab();
    const filter = await screen.findByRole("button", { name: "Pending review (1)" });

    await user.click(filter);
    await waitFor(() => expect(dataRows()).toHaveLength(1));
    expect(row("Omar Haddad")).toBeInTheDocument();
    expect(server.callsTo("GET /admin/users").some((r) => r.query.get("status") === "pending_review")).toBe(
      true,
    );

    await user.click(within(row("Omar Haddad")).getByRole("button", { name: "Activate" }));
    await waitFor(() => expect(server.callsTo("PATCH /admin/users/2/toggle-active")).toHaveLength(1));
    expect(server.callsTo("PATCH /admin/users/2/toggle-active")[0]!.body).toEqual({ is_active: true });
    expect(await screen.findByText("Omar Haddad is active.")).toBeInTheDocument();
    // The list asks again: Omar is no longer pending, so the filtered list is empty.
    expect(await screen.findByText("No users found")).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Pending review" })).toBeInTheDocument();
  });
});

describe("Users tab changes", () => {
  it("adds a user with the contract's body: normalised phone, agencies, admin and session limit", async () => {
    const server = fakeServer([jane]);
    const { user } = renderTab();
    await screen.findByText("1 user");

    await user.click(screen.getByRole("button", { name: "Add User" }));
    const dialog = await screen.findByRole("dialog", { name: "Add User" });
    await user.type(within(dialog).getByRole("textbox", { name: "First name" }), "Alex");
    await user.type(within(dialog).getByRole("textbox", { name: "Last name" }), "Brown");
    await user.type(within(dialog).getByRole("textbox", { name: "Phone" }), "0412 000 111");
    await user.click(within(dialog).getByRole("combobox", { name: "Agencies" }));
    expect(screen.queryByRole("option", { name: /Unmapped/ })).not.toBeInTheDocument();
    await user.click(await screen.findByRole("option", { name: "State Emergency Service (SES)" }));
    await user.type(within(dialog).getByRole("textbox", { name: "Session limit" }), "3");
    await user.click(within(dialog).getByRole("switch", { name: "Administrator" }));
    await user.click(within(dialog).getByRole("button", { name: "Add User" }));

    await waitFor(() => expect(server.callsTo("POST /admin/users")).toHaveLength(1));
    expect(server.callsTo("POST /admin/users")[0]!.body).toEqual({
      first_name: "Alex",
      last_name: "Brown",
      phone: "+61412000111",
      is_admin: true,
      agency_ids: [3],
      max_sessions: 3,
    });
    expect(await screen.findByText("Alex Brown was added and can sign in now.")).toBeInTheDocument();
    expect(await screen.findByRole("row", { name: "Alex Brown" })).toBeInTheDocument();
    expect(screen.queryByRole("dialog", { name: "Add User" })).not.toBeInTheDocument();
  });

  it("names a missing field before sending anything", async () => {
    const server = fakeServer([jane]);
    const { user } = renderTab();
    await screen.findByText("1 user");
    await user.click(screen.getByRole("button", { name: "Add User" }));
    const dialog = await screen.findByRole("dialog", { name: "Add User" });
    await user.type(within(dialog).getByRole("textbox", { name: "First name" }), "Alex");
    await user.type(within(dialog).getByRole("textbox", { name: "Session limit" }), "50");
    await user.click(within(dialog).getByRole("button", { name: "Add User" }));

    expect(within(dialog).getByText("Last name is required")).toBeInTheDocument();
    expect(within(dialog).getByText("Phone number is required")).toBeInTheDocument();
    expect(within(dialog).getByText(/A whole number from 1 to 20/)).toBeInTheDocument();
    expect(server.callsTo("POST /admin/users")).toHaveLength(0);
  });

  it("shows the server's 400 message and its field error under the field", async () => {
    const server = fakeServer([jane]);
    server.on("POST /admin/users", {
      status: 400,
      body: {
        success: false,
        errorType: "validation_error",
        message: "A user with this phone number already exists",
        fields: [{ field: "body.phone", message: "This phone number is taken" }],
      },
    });
    const { user } = renderTab();
    await screen.findByText("1 user");
    await user.click(screen.getByRole("button", { name: "Add User" }));
    const dialog = await screen.findByRole("dialog", { name: "Add User" });
    await user.type(within(dialog).getByRole("textbox", { name: "First name" }), "Jane");
    await user.type(within(dialog).getByRole("textbox", { name: "Last name" }), "Again");
    await user.type(within(dialog).getByRole("textbox", { name: "Phone" }), "0412345678");
    await user.click(within(dialog).getByRole("button", { name: "Add User" }));

    expect(
      await within(dialog).findByText("A user with this phone number already exists"),
    ).toBeInTheDocument();
    expect(within(dialog).getByRole("textbox", { name: "Phone" })).toHaveAccessibleDescription(
      "This phone number is taken",
    );
    expect(screen.getByRole("dialog", { name: "Add User" })).toBeInTheDocument();
  });

  it("edits a user's agencies with PUT, sending only what changed", async () => {
    const server = fakeServer([jane, ruth]);
    const { user } = renderTab();
    await screen.findByText("2 users");

    await user.click(screen.getByRole("button", { name: "Edit Jane Smith" }));
    const dialog = await screen.findByRole("dialog", { name: "Edit Jane Smith" });
    expect(within(dialog).getByRole("textbox", { name: "Phone" })).toHaveValue("+61412345678");
    await user.click(within(dialog).getByRole("combobox", { name: "Agencies" }));
    // In a multiple choice, picking a chosen option again takes it off.
    await user.click(await screen.findByRole("option", { name: "Country Fire Authority (CFA)" }));
    await user.click(screen.getByRole("option", { name: "State Emergency Service (SES)" }));
    await user.click(within(dialog).getByRole("button", { name: "Save" }));

    await waitFor(() => expect(server.callsTo("PUT /admin/users/1/agencies")).toHaveLength(1));
    expect(server.callsTo("PUT /admin/users/1/agencies")[0]!.body).toEqual({ agency_ids: [3] });
    expect(server.callsTo("PUT /admin/users/1")).toHaveLength(0);
    expect(server.callsTo("PUT /admin/users/1/session-limits")).toHaveLength(0);
    expect(await screen.findByText("Jane Smith was saved.")).toBeInTheDocument();
    await waitFor(() => expect(within(row("Jane Smith")).getByText("SES")).toBeInTheDocument());
  });

  it("edits names, phone, admin and session limit with their own calls", async () => {
    const server = fakeServer([jane]);
    const { user } = renderTab();
    await screen.findByText("1 user");

    await user.click(screen.getByRole("button", { name: "Edit Jane Smith" }));
    const dialog = await screen.findByRole("dialog", { name: "Edit Jane Smith" });
    const last = within(dialog).getByRole("textbox", { name: "Last name" });
    await user.clear(last);
    await user.type(last, "Jones");
    const phone = within(dialog).getByRole("textbox", { name: "Phone" });
    await user.clear(phone);
    await user.type(phone, "0412 999 888");
    await user.click(within(dialog).getByRole("switch", { name: "Administrator" }));
    await user.type(within(dialog).getByRole("textbox", { name: "Session limit" }), "4");
    await user.click(within(dialog).getByRole("button", { name: "Save" }));

    await waitFor(() => expect(server.callsTo("PUT /admin/users/1/session-limits")).toHaveLength(1));
    expect(server.callsTo("PUT /admin/users/1")[0]!.body).toEqual({
      last_name: "Jones",
      phone: "+61412999888",
      is_admin: true,
    });
    expect(server.callsTo("PUT /admin/users/1/session-limits")[0]!.body).toEqual({ max_sessions: 4 });
    expect(server.callsTo("PUT /admin/users/1/agencies")).toHaveLength(0);
    expect(await screen.findByRole("row", { name: "Jane Jones" })).toBeInTheDocument();
  });

  it("deactivates only after confirmation", async () => {
    const server = fakeServer([jane]);
    const { user } = renderTab();
    await screen.findByText("1 user");

    await user.click(within(row("Jane Smith")).getByRole("button", { name: "Deactivate" }));
    let confirm = await screen.findByRole("alertdialog", { name: "Deactivate User" });
    await user.click(within(confirm).getByRole("button", { name: "Cancel" }));
    await waitFor(() => expect(screen.queryByRole("alertdialog")).not.toBeInTheDocument());
    expect(server.callsTo("PATCH /admin/users/1/toggle-active")).toHaveLength(0);

    await user.click(within(row("Jane Smith")).getByRole("button", { name: "Deactivate" }));
    confirm = await screen.findByRole("alertdialog", { name: "Deactivate User" });
    expect(confirm).toHaveTextContent("Deactivate Jane Smith?");
    await user.click(within(confirm).getByRole("button", { name: "Deactivate" }));

    await waitFor(() => expect(server.callsTo("PATCH /admin/users/1/toggle-active")).toHaveLength(1));
    expect(server.callsTo("PATCH /admin/users/1/toggle-active")[0]!.body).toEqual({ is_active: false });
    await waitFor(() => expect(within(row("Jane Smith")).getByText("Inactive")).toBeInTheDocument());
    expect(within(row("Jane Smith")).getByRole("button", { name: "Activate" })).toBeInTheDocument();
  });

  it("shows the server's guard-rail message when it refuses", async () => {
    const server = fakeServer([jane]);
    server.on("PATCH /admin/users/*", {
      status: 403,
      body: { success: false, errorType: "forbidden", message: "You cannot deactivate yourself" },
    });
    const onError = vi.fn();
    const { user } = renderTab(onError);
    await screen.findByText("1 user");

    await user.click(within(row("Jane Smith")).getByRole("button", { name: "Deactivate" }));
    const confirm = await screen.findByRole("alertdialog", { name: "Deactivate User" });
    await user.click(within(confirm).getByRole("button", { name: "Deactivate" }));

    expect(await screen.findByRole("alert")).toHaveTextContent("You cannot deactivate yourself");
    expect(onError).toHaveBeenCalledWith("You cannot deactivate yourself");
    expect(within(row("Jane Smith")).getByText("Active")).toBeInTheDocument();
  });

  it("deletes only after confirmation", async () => {
    const server = fakeServer([jane, ruth]);
    const { user } = renderTab();
    await screen.findByText("2 users");

    await user.click(screen.getByRole("button", { name: "Delete Jane Smith" }));
    const confirm = await screen.findByRole("alertdialog", { name: "Delete User" });
    expect(confirm).toHaveTextContent("This cannot be undone.");
    expect(server.callsTo("DELETE /admin/users/1")).toHaveLength(0);
    await user.click(within(confirm).getByRole("button", { name: "Delete" }));

    await waitFor(() => expect(server.callsTo("DELETE /admin/users/1")).toHaveLength(1));
    expect(await screen.findByText("1 user")).toBeInTheDocument();
    expect(screen.queryByRole("row", { name: "Jane Smith" })).not.toBeInTheDocument();
    expect(screen.getByText("Jane Smith was deleted.")).toBeInTheDocument();
  });
});

describe("Users tab sessions", () => {
  it("lists a user's sessions and signs one out, then all, each after confirmation", async () => {
    const server = fakeServer([jane]);
    const { user } = renderTab();
    await screen.findByText("1 user");

    await user.click(screen.getByRole("button", { name: "Sessions of Jane Smith" }));
    const dialog = await screen.findByRole("dialog", { name: "Sessions of Jane Smith" });
    const list = await within(dialog).findByRole("list", { name: "Active sessions" });
    const items = within(list).getAllByRole("listitem");
    expect(items).toHaveLength(2);
    expect(items[0]).toHaveTextContent("Chrome on Android");
    expect(items[0]).toHaveTextContent("IP 203.0.113.7");

    await user.click(within(items[1]!).getByRole("button", { name: "Sign Out" }));
    let confirm = await screen.findByRole("alertdialog", { name: "Sign Out Device" });
    expect(confirm).toHaveTextContent("Firefox on Windows");
    await user.click(within(confirm).getByRole("button", { name: "Sign Out" }));
    await waitFor(() => expect(server.callsTo("POST /admin/users/1/sessions/terminate")).toHaveLength(1));
    expect(server.callsTo("POST /admin/users/1/sessions/terminate")[0]!.body).toEqual({
      session_id: "5b1e6c1e-0000-4000-8000-000000000002",
    });
    expect(await screen.findByText("1 session of Jane Smith ended.")).toBeInTheDocument();

    // The confirmation has closed and the sessions dialog is usable again.
    await waitFor(() => expect(screen.queryByRole("alertdialog")).not.toBeInTheDocument());
    await user.click(await within(dialog).findByRole("button", { name: "Sign Out All" }));
    confirm = await screen.findByRole("alertdialog", { name: "Sign Out All Devices" });
    await user.click(within(confirm).getByRole("button", { name: "Sign Out All" }));
    await waitFor(() => expect(server.callsTo("POST /admin/users/1/sessions/terminate")).toHaveLength(2));
    expect(server.callsTo("POST /admin/users/1/sessions/terminate")[1]!.body).toEqual({});
    expect(await screen.findByText("2 sessions of Jane Smith ended.")).toBeInTheDocument();
    // The sessions were asked for again after each change.
    expect(server.callsTo("GET /admin/users/1/sessions").length).toBeGreaterThanOrEqual(2);
  });
});

describe("Users tab install banner reset", () => {
  it("resets the selected users' banner, and everyone's after confirmation", async () => {
    const server = fakeServer([jane, omar, ruth]);
    const { user } = renderTab();
    await screen.findByText("3 users");
    expect(screen.getByRole("button", { name: "Reset Install Banner" })).toBeDisabled();

    await user.click(screen.getByRole("checkbox", { name: "Select Jane Smith" }));
    await user.click(screen.getByRole("checkbox", { name: "Select Ruth Nguyen" }));
    await user.click(screen.getByRole("button", { name: "Reset Install Banner (2 selected)" }));
    await waitFor(() => expect(server.callsTo("POST /admin/users/pwa-banner/reset")).toHaveLength(1));
    expect(server.callsTo("POST /admin/users/pwa-banner/reset")[0]!.body).toEqual({ user_ids: [1, 3] });
    expect(await screen.findByText("Install banner reset for 2 users.")).toBeInTheDocument();
    expect(screen.getByRole("checkbox", { name: "Select Jane Smith" })).not.toBeChecked();

    await user.click(screen.getByRole("button", { name: "Reset Install Banner for Everyone" }));
    const confirm = await screen.findByRole("alertdialog", { name: "Reset Install Banner for Everyone" });
    expect(server.callsTo("POST /admin/users/pwa-banner/reset-all")).toHaveLength(0);
    await user.click(within(confirm).getByRole("button", { name: "Reset for Everyone" }));
    await waitFor(() => expect(server.callsTo("POST /admin/users/pwa-banner/reset-all")).toHaveLength(1));
    expect(await screen.findByText("Install banner reset for 3 users.")).toBeInTheDocument();
  });

  it("selects every user on the page at once", async () => {
    const server = fakeServer([jane, omar, ruth]);
    const { user } = renderTab();
    await screen.findByText("3 users");
    await user.click(screen.getByRole("checkbox", { name: "Select all users on this page" }));
    await user.click(screen.getByRole("button", { name: "Reset Install Banner (3 selected)" }));
    await waitFor(() => expect(server.callsTo("POST /admin/users/pwa-banner/reset")).toHaveLength(1));
    expect(server.callsTo("POST /admin/users/pwa-banner/reset")[0]!.body).toEqual({ user_ids: [1, 2, 3] });
  });
});
