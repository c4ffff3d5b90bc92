import { render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { AppProviders, createQueryClient } from "../../../app/providers";
import { type MockRoute, mockApi } from "../../../testing/mock-api";
import { storeSession, testUser } from "../../../testing/session-fixtures";
import { AgenciesTab } from "./agencies-tab";
import { csvColumns } from "./capcode-import-dialog";
import { CAPCODE_CHECKLIST_LIMIT } from "./unit-capcodes-dialog";

const cfa = {
  id: 2,
  name: "Country Fire Authority",
  code: "CFA",
  logo_path: null,
  description: null,
  capcode_count: 3,
  user_count: 9,
};
const ses = { ...cfa, id: 3, name: "State Emergency Service", code: "SES", capcode_count: 0, user_count: 1 };
const ok = (data: unknown, message?: string) => ({ body: { success: true, message, data } });
const capcodes = [
  { id: 31, capcode: "1234567", agency_id: 2, alias: "Kangaroo Flat FB", area: "Bendigo" },
  { id: 32, capcode: "0012345", agency_id: 2, alias: "Bendigo Group", area: null },
  { id: 33, capcode: "7654321", agency_id: 2, alias: "Doveton Pumper", area: "Dandenong" },
];
const kangarooFlat = {
  id: 10,
  agency_id: 2,
  name: "Kangaroo Flat",
  code: "KANG",
  postcode: "3555",
  suburb: "KANGAROO FLAT",
  state: "VIC",
  has_location: true,
  member_count: 3,
  capcodes: [
    { id: 31, capcode: "1234567", alias: "Kangaroo Flat FB" },
    { id: 32, capcode: "0012345", alias: "Bendigo Group" },
  ],
};
const bendigoGroup = {
  ...kangarooFlat,
  id: 11,
  name: "Bendigo Group",
  code: null,
  postcode: null,
  suburb: null,
  state: null,
  has_location: false,
  member_count: 0,
  capcodes: [{ id: 32, capcode: "0012345", alias: "Bendigo Group" }],
};
const places3555 = [
  { postcode: "3555", suburb: "GOLDEN SQUARE", state_abbreviation: "VIC" },
  { postcode: "3555", suburb: "KANGAROO FLAT", state_abbreviation: "VIC" },
];

function renderTab(routes: Record<string, MockRoute> = {}) {
  const server = mockApi({
    "GET /admin/agencies": ok([cfa, ses]),
    "GET /admin/capcodes/unmapped": ok([]),
    "GET /admin/agencies/2/capcodes": ok(capcodes),
    "GET /admin/agencies/2/units": ok([bendigoGroup, kangarooFlat]),
    "GET /admin/agencies/3/units": ok([]),
    "GET /postcode/lookup/3555": ok(places3555),
    ...routes,
  });
  storeSession({ user: { ...testUser, is_admin: true } });
  const user = userEvent.setup({ delay: null });
  render(
    <AppProviders queryClient={createQueryClient()}>
      <AgenciesTab />
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

async function openUnits(user: User, agency = "Country Fire Authority") {
  await user.click(await screen.findByRole("button", { name: `Units of ${agency}` }));
  return screen.findByRole("dialog", { name: `Units of ${agency}` });
}

async function unitRow(dialog: HTMLElement, name: string) {
  const table = await within(dialog).findByRole("table", { name: "Units of Country Fire Authority" });
  return within(table).getByRole("row", { name: new RegExp(`^${name}`) });
}

// Journeys through dialogs type and click a lot; a loaded machine needs more than the default 5 s.
vi.setConfig({ testTimeout: 30_000 });

describe("units of an agency", () => {
  it("lists each unit with its place, capcodes and members", async () => {
    const { user } = renderTab();
    const dialog = await openUnits(user);
    const cells = (row: HTMLElement) =>
      within(row)
        .getAllByRole("cell")
        .slice(0, 4)
        .map((cell) => cell.textContent);
    expect(cells(await unitRow(dialog, "Kangaroo Flat"))).toEqual([
      "Kangaroo FlatKANG",
      "KANGAROO FLAT, VIC 3555",
      "1234567 Kangaroo Flat FB0012345 Bendigo Group",
      "3",
    ]);
    expect(cells(await unitRow(dialog, "Bendigo Group"))).toEqual([
      "Bendigo Group",
      "Not placed",
      "0012345 Bendigo Group",
      "0",
    ]);
  });

  it("tells an agency with capcodes but no units what units are for, and adds the first one with its place", async () => {
    let created = false;
    const { server, user } = renderTab({
      "GET /admin/agencies/2/units": () => ok(created ? [kangarooFlat] : []),
      "POST /admin/agencies/2/units": () => {
        created = true;
        return { status: 201, ...ok({ ...kangarooFlat, capcodes: undefined, member_count: undefined }) };
      },
    });
    const dialog = await openUnits(user);
    expect(
      await within(dialog).findByText(
        /Group capcodes into brigades or units so members see their own jobs first\./,
      ),
    ).toBeInTheDocument();
    await user.click(within(dialog).getByRole("button", { name: "Add unit" }));

    const form = await screen.findByRole("dialog", { name: "New unit of Country Fire Authority" });
    await fill(user, within(form).getByRole("textbox", { name: "Name" }), "Kangaroo Flat");
    await fill(user, within(form).getByRole("textbox", { name: "Code" }), "kang");
    // The registration screen's search: a postcode with several localities opens the picker.
    await fill(user, within(form).getByRole("textbox", { name: /Place/ }), "3555");
    const picker = await screen.findByRole("dialog", { name: "Select the unit's place" });
    await user.click(within(picker).getByRole("option", { name: /KANGAROO FLAT/ }));
    expect(within(form).getByText("Selected: KANGAROO FLAT, VIC 3555")).toBeInTheDocument();
    // Found by role once the picker has closed (an open picker hides the form from the tree).
    await user.click(await within(form).findByRole("button", { name: "Add unit" }));

    expect(await within(dialog).findByRole("status")).toHaveTextContent("Unit Kangaroo Flat added.");
    expect(server.callsTo("POST /admin/agencies/2/units")[0]?.body).toEqual({
      name: "Kangaroo Flat",
      code: "KANG",
      postcode: "3555",
      suburb: "KANGAROO FLAT",
      state: "VIC",
    });
    expect(await unitRow(dialog, "Kangaroo Flat")).toBeInTheDocument();
    expect(within(dialog).queryByText(/Group capcodes into brigades/)).not.toBeInTheDocument();
  });

  it("asks for capcodes first when the agency has none", async () => {
    const { user } = renderTab();
    const dialog = await openUnits(user, "State Emergency Service");
    expect(
      await within(dialog).findByText(
        "No units yet. Add the agency's capcodes first, then group them into brigades or units.",
      ),
    ).toBeInTheDocument();
    expect(within(dialog).getByRole("button", { name: "Add unit" })).toBeInTheDocument();
  });

  it("checks a unit's name, code and place before sending, and shows the server's refusals", async () => {
    const { server, user } = renderTab({
      "POST /admin/agencies/2/units": {
        status: 409,
        body: {
          success: false,
          message: "Country Fire Authority already has a unit named 'Kangaroo Flat'.",
          errorType: "conflict",
        },
      },
    });
    const dialog = await openUnits(user);
    await unitRow(dialog, "Kangaroo Flat");
    await user.click(within(dialog).getByRole("button", { name: "Add unit" }));
    const form = await screen.findByRole("dialog", { name: "New unit of Country Fire Authority" });
    await fill(user, within(form).getByRole("textbox", { name: "Code" }), "K F");
    // Two letters are not searched yet: a place typed but never chosen.
    await fill(user, within(form).getByRole("textbox", { name: /Place/ }), "Ka");
    await user.click(within(form).getByRole("button", { name: "Add unit" }));
    expect(within(form).getByText("Name is required")).toBeInTheDocument();
    expect(within(form).getByText("Code may hold only letters, digits, '-' and '_'")).toBeInTheDocument();
    expect(
      within(form).getByText(
        "Choose a place from the matches, or clear the field to place the unit by its name.",
      ),
    ).toBeInTheDocument();
    expect(server.callsTo("POST /admin/agencies/2/units")).toHaveLength(0);

    await fill(user, within(form).getByRole("textbox", { name: "Name" }), "Kangaroo Flat");
    await user.clear(within(form).getByRole("textbox", { name: "Code" }));
    await user.clear(within(form).getByRole("textbox", { name: /Place/ }));
    await user.click(within(form).getByRole("button", { name: "Add unit" }));
    expect(await within(form).findByRole("alert")).toHaveTextContent(
      "Country Fire Authority already has a unit named 'Kangaroo Flat'.",
    );
    expect(server.callsTo("POST /admin/agencies/2/units")[0]?.body).toEqual({
      name: "Kangaroo Flat",
      code: null,
      postcode: null,
      suburb: null,
      state: null,
    });

    server.on("POST /admin/agencies/2/units", {
      status: 400,
      body: {
        success: false,
        message: "Location not found: choose a postcode and suburb from the list.",
        errorType: "validation_error",
      },
    });
    await user.click(within(form).getByRole("button", { name: "Add unit" }));
    await waitFor(() =>
      expect(within(form).getByRole("alert")).toHaveTextContent(
        "Location not found: choose a postcode and suburb from the list.",
      ),
    );
  });

  it("edits a unit, keeping its place, and says where the server placed one whose place was cleared", async () => {
    const { server, user } = renderTab({
      "PUT /admin/units/10": (request) => ok({ ...kangarooFlat, ...(request.body as object) }),
      "PUT /admin/units/11": ok({
        ...bendigoGroup,
        postcode: "3550",
        suburb: "BENDIGO",
        state: "VIC",
        has_location: true,
      }),
    });
    const dialog = await openUnits(user);
    await user.click(
      within(await unitRow(dialog, "Kangaroo Flat")).getByRole("button", { name: "Edit unit Kangaroo Flat" }),
    );
    const form = await screen.findByRole("dialog", { name: "Edit unit Kangaroo Flat" });
    expect(within(form).getByText("Selected: KANGAROO FLAT, VIC 3555")).toBeInTheDocument();
    const name = within(form).getByRole("textbox", { name: "Name" });
    await user.clear(name);
    await fill(user, name, "Kangaroo Flat Fire Brigade");
    await user.click(within(form).getByRole("button", { name: "Save" }));
    expect(await within(dialog).findByRole("status")).toHaveTextContent("Unit saved.");
    expect(server.callsTo("PUT /admin/units/10")[0]?.body).toEqual({
      name: "Kangaroo Flat Fire Brigade",
      code: "KANG",
      postcode: "3555",
      suburb: "KANGAROO FLAT",
      state: "VIC",
    });

    await user.click(within(dialog).getByRole("button", { name: "Edit unit Bendigo Group" }));
    const second = await screen.findByRole("dialog", { name: "Edit unit Bendigo Group" });
    await user.click(within(second).getByRole("button", { name: "Save" }));
    await waitFor(() =>
      expect(within(dialog).getByRole("status")).toHaveTextContent(
        "Unit saved. Placed at BENDIGO, VIC 3550 from its name.",
      ),
    );
  });

  it("deletes a unit after saying its members go back to the whole agency's view", async () => {
    let deleted = false;
    let tries = 0;
    const { server, user } = renderTab({
      "GET /admin/agencies/2/units": () => ok(deleted ? [bendigoGroup] : [bendigoGroup, kangarooFlat]),
      "DELETE /admin/units/10": () => {
        // The first try meets a server that has just lost its database connection.
        if (++tries === 1)
          return {
            status: 503,
            body: { success: false, message: "Service temporarily unavailable", errorType: "unavailable" },
          };
        deleted = true;
        return ok(undefined, "Unit deleted.");
      },
    });
    const dialog = await openUnits(user);
    await user.click(
      within(await unitRow(dialog, "Kangaroo Flat")).getByRole("button", {
        name: "Delete unit Kangaroo Flat",
      }),
    );
    const confirm = await screen.findByRole("alertdialog", { name: "Delete unit Kangaroo Flat?" });
    expect(confirm).toHaveTextContent(
      "Its 3 members go back to the whole agency's view (every Country Fire Authority job), unless in another of its units.",
    );
    expect(server.callsTo("DELETE /admin/units/10")).toHaveLength(0);
    await user.click(within(confirm).getByRole("button", { name: "Delete" }));
    expect(await within(confirm).findByRole("alert")).toHaveTextContent("Service temporarily unavailable");
    await user.click(within(confirm).getByRole("button", { name: "Delete" }));
    expect(await within(dialog).findByRole("status")).toHaveTextContent("Unit Kangaroo Flat deleted.");
    await waitFor(() =>
      expect(within(dialog).queryByRole("row", { name: /^Kangaroo Flat/ })).not.toBeInTheDocument(),
    );
  });

  it("chooses a unit's capcodes from a searchable checklist naming the other units each serves", async () => {
    const { server, user } = renderTab({
      "PUT /admin/units/10/capcodes": {
        status: 400,
        body: {
          success: false,
          message: "A unit holds only its own agency's capcodes; not capcode id(s) 33.",
          errorType: "validation_error",
        },
      },
    });
    const dialog = await openUnits(user);
    await user.click(
      within(await unitRow(dialog, "Kangaroo Flat")).getByRole("button", {
        name: "Capcodes of unit Kangaroo Flat",
      }),
    );
    const chooser = await screen.findByRole("dialog", { name: "Capcodes of unit Kangaroo Flat" });
    const list = await within(chooser).findByRole("list", { name: "Capcodes of Kangaroo Flat" });
    // The unit's own capcodes first, ticked; a capcode of another unit says so.
    expect(
      within(list)
        .getAllByRole("checkbox")
        .map((box) => box.getAttribute("aria-label")),
    ).toEqual(["0012345 Bendigo Group", "1234567 Kangaroo Flat FB", "7654321 Doveton Pumper"]);
    expect(within(list).getByRole("checkbox", { name: "1234567 Kangaroo Flat FB" })).toBeChecked();
    expect(within(list).getByRole("checkbox", { name: "0012345 Bendigo Group" })).toHaveAccessibleDescription(
      "Also in Bendigo Group",
    );
    expect(within(list).getByRole("checkbox", { name: "7654321 Doveton Pumper" })).not.toBeChecked();
    expect(within(chooser).getByText("2 selected")).toBeInTheDocument();

    await fill(user, within(chooser).getByRole("textbox", { name: "Search capcodes" }), "dandenong");
    expect(within(list).getAllByRole("checkbox")).toHaveLength(1);
    await user.click(within(list).getByRole("checkbox", { name: "7654321 Doveton Pumper" }));
    await user.clear(within(chooser).getByRole("textbox", { name: "Search capcodes" }));
    await user.click(within(list).getByRole("checkbox", { name: "0012345 Bendigo Group" }));
    expect(within(chooser).getByText("2 selected")).toBeInTheDocument();

    await user.click(within(chooser).getByRole("button", { name: "Save" }));
    expect(await within(chooser).findByRole("alert")).toHaveTextContent(
      "A unit holds only its own agency's capcodes; not capcode id(s) 33.",
    );
    expect(server.callsTo("PUT /admin/units/10/capcodes")[0]?.body).toEqual({ capcode_ids: [31, 33] });

    server.on("PUT /admin/units/10/capcodes", ok(undefined, "Capcodes saved."));
    await user.click(within(chooser).getByRole("button", { name: "Save" }));
    expect(await within(dialog).findByRole("status")).toHaveTextContent(
      "Kangaroo Flat is paged on 2 capcodes.",
    );
    expect(screen.queryByRole("dialog", { name: "Capcodes of unit Kangaroo Flat" })).not.toBeInTheDocument();
  });

  it(`draws at most ${CAPCODE_CHECKLIST_LIMIT} capcodes and lets a search find the others`, async () => {
    const many = Array.from({ length: CAPCODE_CHECKLIST_LIMIT + 10 }, (_, index) => ({
      id: 1000 + index,
      capcode: String(1000000 + index),
      agency_id: 2,
      alias: null,
      area: null,
    }));
    const { user } = renderTab({ "GET /admin/agencies/2/capcodes": ok(many) });
    const dialog = await openUnits(user);
    await user.click(within(dialog).getByRole("button", { name: "Capcodes of unit Bendigo Group" }));
    const chooser = await screen.findByRole("dialog", { name: "Capcodes of unit Bendigo Group" });
    await within(chooser).findByRole("list");
    expect(chooser.querySelectorAll('input[type="checkbox"]')).toHaveLength(CAPCODE_CHECKLIST_LIMIT);
    expect(
      within(chooser).getByText(
        `Showing ${CAPCODE_CHECKLIST_LIMIT} of ${CAPCODE_CHECKLIST_LIMIT + 10}: search to find the others.`,
      ),
    ).toBeInTheDocument();
    await fill(user, within(chooser).getByRole("textbox", { name: "Search capcodes" }), "1000209");
    expect(within(chooser).getByRole("checkbox", { name: "1000209" })).toBeInTheDocument();
    expect(within(chooser).queryByText(/^Showing/)).not.toBeInTheDocument();
  });

  it("offers to retry when the units cannot be loaded", async () => {
    let fail = true;
    const { user } = renderTab({
      "GET /admin/agencies/2/units": () =>
        fail
          ? {
              status: 404,
              body: { success: false, message: "Agency not found.", errorType: "not_found" },
            }
          : ok([kangarooFlat]),
    });
    const dialog = await openUnits(user);
    expect(await within(dialog).findByText("Agency not found.")).toBeInTheDocument();
    fail = false;
    await user.click(within(dialog).getByRole("button", { name: "Retry" }));
    expect(await unitRow(dialog, "Kangaroo Flat")).toBeInTheDocument();
  });
});

describe("capcode CSV import with units", () => {
  const withoutUnits = "address,alias,agency\n1234567,Kangaroo Flat,CFA\n7654321,Doveton,CFA";
  const preview = (applied: boolean) =>
    ok({
      applied,
      created: [
        {
          line: 2,
          capcode: "1234567",
          agency: "CFA",
          alias: "Kangaroo Flat",
          area: null,
          units: ["Kangaroo Flat"],
        },
      ],
      changed: [
        {
          line: 3,
          capcode: "7654321",
          from: { agency: "CFA", alias: "Doveton", area: null, units: [] },
          to: { agency: "CFA", alias: "Doveton", area: null, units: ["Doveton"] },
        },
      ],
      unchanged: 0,
      refused: [],
      units_created: [
        { agency: "CFA", name: "Doveton" },
        { agency: "CFA", name: "Kangaroo Flat" },
      ],
    });

  it("reads the header's columns as the server does", () => {
    expect(csvColumns('\uFEFF\n"Address", Alias ,AGENCY,unit\r\n1,2,3,4')).toEqual([
      "address",
      "alias",
      "agency",
      "unit",
    ]);
    expect(csvColumns("")).toEqual([""]);
  });

  it("offers units from aliases for a CSV without a unit column, and previews the units and each line's units", async () => {
    const { server, user } = renderTab({
      "POST /admin/capcodes/import": (request) =>
        preview((request.body as { dry_run: boolean }).dry_run === false),
    });
    await user.click(await screen.findByRole("button", { name: "Import CSV" }));
    const dialog = await screen.findByRole("dialog", { name: "Import Capcodes (PagerMon CSV)" });
    const option = "Capcodes join the unit their alias names (units missing in the agency are created)";
    expect(within(dialog).queryByRole("checkbox", { name: option })).not.toBeInTheDocument();
    const csv = within(dialog).getByRole("textbox", { name: "CSV" });
    await user.click(csv);
    await user.paste(withoutUnits);
    await user.click(within(dialog).getByRole("checkbox", { name: option }));
    await user.click(within(dialog).getByRole("button", { name: "Preview" }));

    expect(await within(dialog).findByRole("status")).toHaveTextContent(
      "Preview (nothing saved yet): 1 to create, 1 to change, 0 unchanged, 0 refused. 2 new units.",
    );
    expect(within(dialog).getByRole("region", { name: "Units to create" })).toHaveTextContent(
      "CFA · DovetonCFA · Kangaroo Flat",
    );
    expect(within(dialog).getByRole("region", { name: "Will be created" })).toHaveTextContent(
      "Line 2: 1234567 → CFA · Kangaroo Flat · units: Kangaroo Flat",
    );
    expect(within(dialog).getByRole("region", { name: "Will be changed" })).toHaveTextContent(
      "Line 3: 7654321: CFA · Doveton · no unit → CFA · Doveton · units: Doveton",
    );
    expect(server.callsTo("POST /admin/capcodes/import")[0]?.body).toEqual({
      csv: withoutUnits,
      dry_run: true,
      units_from_alias: true,
    });

    // What is applied is what was previewed: turning the option off asks for a new preview.
    const apply = within(dialog).getByRole("button", { name: "Apply" });
    expect(apply).toBeEnabled();
    await user.click(within(dialog).getByRole("checkbox", { name: option }));
    expect(apply).toBeDisabled();
    await user.click(within(dialog).getByRole("checkbox", { name: option }));
    await user.click(within(dialog).getByRole("button", { name: "Preview" }));
    await waitFor(() => expect(apply).toBeEnabled());
    await user.click(apply);
    expect(await within(dialog).findByRole("region", { name: "Units created" })).toBeInTheDocument();
    expect(server.callsTo("POST /admin/capcodes/import")[2]?.body).toEqual({
      csv: withoutUnits,
      dry_run: false,
      units_from_alias: true,
    });
  });

  it("does not offer units from aliases when the CSV names its units", async () => {
    const { server, user } = renderTab({ "POST /admin/capcodes/import": preview(false) });
    await user.click(await screen.findByRole("button", { name: "Import CSV" }));
    const dialog = await screen.findByRole("dialog", { name: "Import Capcodes (PagerMon CSV)" });
    const text = "address,alias,agency,unit\n1234567,KF,CFA,Kangaroo Flat; Bendigo Group";
    await user.click(within(dialog).getByRole("textbox", { name: "CSV" }));
    await user.paste(text);
    expect(within(dialog).queryByRole("checkbox")).not.toBeInTheDocument();
    await user.click(within(dialog).getByRole("button", { name: "Preview" }));
    await within(dialog).findByRole("status");
    expect(server.callsTo("POST /admin/capcodes/import")[0]?.body).toEqual({ csv: text, dry_run: true });
  });
});
