import { render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { AppProviders, createQueryClient } from "../../../app/providers";
import { type MockRoute, mockApi } from "../../../testing/mock-api";
import { UsersTab } from "./users-tab";

const cfa = { id: 2, name: "Country Fire Authority", code: "CFA" };
const ses = { id: 3, name: "State Emergency Service", code: "SES" };
const agencies = [{ id: 1, name: "Unmapped Capcodes", code: "UNMAPPED" }, cfa, ses];
const ok = (data: unknown) => ({ body: { success: true, data } });

const unit = (id: number, name: string, agency: { id: number }) => ({
  id,
  agency_id: agency.id,
  name,
  code: null,
  postcode: null,
  suburb: null,
  state: null,
  has_location: false,
  member_count: 0,
  capcodes: [],
});
const kangarooFlat = unit(10, "Kangaroo Flat", cfa);
const goldenSquare = unit(11, "Golden Square", cfa);
const bendigoSes = unit(20, "Bendigo Unit", ses);
const mine = (u: ReturnType<typeof unit>, agency: { name: string }) => ({
  id: u.id,
  name: u.name,
  code: null,
  agency_id: u.agency_id,
  agency_name: agency.name,
});

const jane = {
  id: 1,
  first_name: "Jane",
  last_name: "Smith",
  phone: "+61412345678",
  is_admin: false,
  is_active: true,
  is_verified: true,
  status: "active",
  max_sessions: null,
  active_sessions: 1,
  last_activity: null,
  created_at: "2026-11-01T00:00:00.000Z",
  agencies: [cfa],
};

function renderTab(routes: Record<string, MockRoute> = {}) {
  const server = mockApi({
    "GET /admin/agencies": ok(agencies),
    "GET /admin/agencies/2/units": ok([goldenSquare, kangarooFlat]),
    "GET /admin/agencies/3/units": ok([bendigoSes]),
    "GET /admin/users": { body: { success: true, data: [jane], total: 1 } },
    "GET /admin/users/1/units": ok([mine(kangarooFlat, cfa)]),
    "PUT /admin/users/1/agencies": ok([]),
    "PUT /admin/users/1/units": (request) => {
      const ids = (request.body as { unit_ids: number[] }).unit_ids;
      const all = [mine(kangarooFlat, cfa), mine(goldenSquare, cfa), mine(bendigoSes, ses)];
      return ok(all.filter((u) => ids.includes(u.id)));
    },
    ...routes,
  });
  const user = userEvent.setup({ delay: null });
  render(
    <AppProviders queryClient={createQueryClient()}>
      <UsersTab />
    </AppProviders>,
  );
  return { server, user };
}

type User = ReturnType<typeof userEvent.setup>;

/** Puts text into a field in one input event, as a paste does (typing key by key only costs time here). */
async function fill(user: User, field: HTMLElement, text: string) {
  await user.click(field);
  await user.paste(text);
}

async function editJane(user: User) {
  await user.click(await screen.findByRole("button", { name: "Edit Jane Smith" }));
  return screen.findByRole("dialog", { name: "Edit Jane Smith" });
}

/** The chips of a multiple choice, by label. */
function chipsOf(dialog: HTMLElement, label: string): string[] {
  const field = within(dialog).getByRole("combobox", { name: label }).closest(".MuiAutocomplete-root");
  return [...(field?.querySelectorAll(".MuiChip-label") ?? [])].map((chip) => chip.textContent ?? "");
}

vi.setConfig({ testTimeout: 30_000 });

describe("a user's units in the Users tab", () => {
  it("shows the user's units and changes them from every agency's units, grouped by agency", async () => {
    const { server, user } = renderTab();
    const dialog = await editJane(user);
    await waitFor(() => expect(chipsOf(dialog, "Units")).toEqual(["Kangaroo Flat"]));
    // The other agencies' units load only when the admin opens the list.
    expect(server.callsTo("GET /admin/agencies/3/units")).toHaveLength(0);

    await user.click(within(dialog).getByRole("combobox", { name: "Units" }));
    const listbox = await screen.findByRole("listbox");
    await within(listbox).findByRole("option", { name: "Bendigo Unit" });
    const groups = [...listbox.querySelectorAll(".MuiAutocomplete-groupLabel")].map((g) => g.textContent);
    expect(groups).toEqual(["Country Fire Authority", "State Emergency Service"]);
    expect(
      within(listbox)
        .getAllByRole("option")
        .map((o) => o.textContent),
    ).toEqual(["Golden Square", "Kangaroo Flat", "Bendigo Unit"]);
    expect(within(listbox).queryByText(/Unmapped/)).not.toBeInTheDocument();
    await user.click(within(listbox).getByRole("option", { name: "Bendigo Unit" }));
    await user.keyboard("{Escape}");

    // A unit's agency comes with it, as the server assigns it.
    expect(chipsOf(dialog, "Units")).toEqual(["Kangaroo Flat", "Bendigo Unit"]);
    expect(chipsOf(dialog, "Agencies")).toEqual([
      "Country Fire Authority (CFA)",
      "State Emergency Service (SES)",
    ]);
    await user.click(within(dialog).getByRole("button", { name: "Save" }));
    expect(await screen.findByRole("status")).toHaveTextContent("Jane Smith was saved.");
    expect(server.callsTo("PUT /admin/users/1/agencies")[0]?.body).toEqual({ agency_ids: [2, 3] });
    expect(server.callsTo("PUT /admin/users/1/units")[0]?.body).toEqual({ unit_ids: [10, 20] });
    // Agencies first: the units call must not be undone by the agencies call after it.
    const order = server.requests.filter((r) => r.method === "PUT").map((r) => r.path);
    expect(order).toEqual(["/admin/users/1/agencies", "/admin/users/1/units"]);
  });

  it("drops an agency's units from the form when the agency is taken away", async () => {
    const { server, user } = renderTab();
    const dialog = await editJane(user);
    await waitFor(() => expect(chipsOf(dialog, "Units")).toEqual(["Kangaroo Flat"]));
    await user.click(within(dialog).getByRole("combobox", { name: "Agencies" }));
    await user.click(await screen.findByRole("option", { name: "Country Fire Authority (CFA)" }));
    await user.keyboard("{Escape}");
    expect(chipsOf(dialog, "Units")).toEqual([]);
    await user.click(within(dialog).getByRole("button", { name: "Save" }));
    await screen.findByRole("status");
    expect(server.callsTo("PUT /admin/users/1/agencies")[0]?.body).toEqual({ agency_ids: [] });
    expect(server.callsTo("PUT /admin/users/1/units")[0]?.body).toEqual({ unit_ids: [] });
  });

  it("leaves the units alone when they could not be loaded, and says so", async () => {
    const { server, user } = renderTab({
      "GET /admin/users/1/units": {
        status: 404,
        body: { success: false, message: "User not found.", errorType: "not_found" },
      },
      "PUT /admin/users/1": ok(jane),
    });
    const dialog = await editJane(user);
    expect(
      await within(dialog).findByText("The user's units could not be loaded; they stay as they are."),
    ).toBeInTheDocument();
    expect(within(dialog).getByRole("combobox", { name: "Units" })).toBeDisabled();
    await fill(user, within(dialog).getByRole("textbox", { name: "First name" }), "t");
    await user.click(within(dialog).getByRole("button", { name: "Save" }));
    await screen.findByRole("status");
    expect(server.callsTo("PUT /admin/users/1")[0]?.body).toEqual({ first_name: "Janet" });
    expect(server.callsTo("PUT /admin/users/1/units")).toHaveLength(0);
  });

  it("shows the server's refusal of a unit in the dialog", async () => {
    const { server, user } = renderTab({
      "PUT /admin/users/1/units": {
        status: 400,
        body: { success: false, message: "Unknown unit id(s): 11.", errorType: "validation_error" },
      },
    });
    const dialog = await editJane(user);
    await waitFor(() => expect(chipsOf(dialog, "Units")).toEqual(["Kangaroo Flat"]));
    await user.click(within(dialog).getByRole("combobox", { name: "Units" }));
    await user.click(await screen.findByRole("option", { name: "Golden Square" }));
    await user.keyboard("{Escape}");
    await user.click(within(dialog).getByRole("button", { name: "Save" }));
    expect(await within(dialog).findByText("Unknown unit id(s): 11.")).toBeInTheDocument();
    expect(screen.getByRole("dialog", { name: "Edit Jane Smith" })).toBeInTheDocument();

    // A refusal naming the field lands under the Units field.
    server.on("PUT /admin/users/1/units", {
      status: 400,
      body: {
        success: false,
        message: "Choose at most 20 units",
        errorType: "validation_error",
        fields: [{ field: "body.unit_ids", message: "Choose at most 20 units" }],
      },
    });
    await user.click(within(dialog).getByRole("button", { name: "Save" }));
    await waitFor(() =>
      expect(within(dialog).getByRole("combobox", { name: "Units" })).toHaveAccessibleDescription(
        "Choose at most 20 units",
      ),
    );
  });

  it("adds a user with a unit, giving them its agency", async () => {
    const created = { ...jane, id: 7, first_name: "Sam", last_name: "Lee", phone: "+61412000111" };
    const { server, user } = renderTab({
      "POST /admin/users": { status: 201, ...ok({ ...created, agencies: [] }) },
      "PUT /admin/users/7/units": ok([mine(bendigoSes, ses)]),
    });
    await screen.findByRole("button", { name: "Edit Jane Smith" });
    await user.click(screen.getByRole("button", { name: "Add User" }));
    const dialog = await screen.findByRole("dialog", { name: "Add User" });
    await fill(user, within(dialog).getByRole("textbox", { name: "First name" }), "Sam");
    await fill(user, within(dialog).getByRole("textbox", { name: "Last name" }), "Lee");
    await fill(user, within(dialog).getByRole("textbox", { name: "Phone" }), "0412 000 111");
    await user.click(within(dialog).getByRole("combobox", { name: "Units" }));
    await user.click(await screen.findByRole("option", { name: "Bendigo Unit" }));
    await user.keyboard("{Escape}");
    await user.click(within(dialog).getByRole("button", { name: "Add User" }));
    expect(await screen.findByRole("status")).toHaveTextContent("Sam Lee was added and can sign in now.");
    expect(server.callsTo("POST /admin/users")[0]?.body).toMatchObject({ agency_ids: [3] });
    expect(server.callsTo("PUT /admin/users/7/units")[0]?.body).toEqual({ unit_ids: [20] });
  });
});
