import { render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { AppProviders, createQueryClient } from "../../../app/providers";
import { type MockRoute, mockApi, type RecordedRequest } from "../../../testing/mock-api";
import { storeSession, testUser } from "../../../testing/session-fixtures";
import { AgenciesTab, EXPORT_FILE_NAME } from "./agencies-tab";

const cfa = {
  id: 2,
  name: "Country Fire Authority",
  code: "CFA",
  logo_path: null,
  description: null,
  capcode_count: 2,
  user_count: 9,
};
const unmappedAgency = { ...cfa, id: 9, name: "Unmapped Capcodes", code: "UNMAPPED", capcode_count: 1 };
const ok = (data: unknown, message?: string) => ({ body: { success: true, message, data } });
const capcodes = [
  { id: 31, capcode: "1234567", agency_id: 2, alias: "Kangaroo Flat FB", area: "Bendigo" },
  { id: 32, capcode: "0012345", agency_id: 2, alias: null, area: null },
];

function renderTab(routes: Record<string, MockRoute> = {}) {
  const server = mockApi({
    "GET /admin/agencies": ok([cfa, unmappedAgency]),
    "GET /admin/capcodes/unmapped": ok([
      {
        id: 77,
        capcode: "7654321",
        agency_id: 9,
        alias: null,
        area: null,
        message_count: 4,
        last_seen: "2026-11-20T01:00:00.000Z",
      },
    ]),
    "GET /admin/agencies/2/capcodes": ok(capcodes),
    ...routes,
  });
  storeSession({ user: { ...testUser, is_admin: true } });
  const user = userEvent.setup();
  render(
    <AppProviders queryClient={createQueryClient()}>
      <AgenciesTab />
    </AppProviders>,
  );
  return { server, user };
}

/** An agency's row; `hidden` reaches it behind an open dialog. */
async function agencyRow(name: string, hidden = false) {
  const table = await screen.findByRole("table", { name: "Agencies", hidden });
  return within(table).getByRole("row", { name: new RegExp(name), hidden });
}

function readBlob(blob: Blob): Promise<string> {
  return new Promise((resolve) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.readAsText(blob);
  });
}

async function openCapcodes(user: ReturnType<typeof userEvent.setup>) {
  await user.click(await screen.findByRole("button", { name: "Capcodes of Country Fire Authority" }));
  const dialog = await screen.findByRole("dialog", { name: "Capcodes of Country Fire Authority" });
  await within(dialog).findByRole("table");
  return dialog;
}

/** Blobs handed to URL.createObjectURL (jsdom has none), each answered with `blob:{n}`. */
let objectUrls: Blob[] = [];

beforeEach(() => {
  objectUrls = [];
  URL.createObjectURL = (blob: Blob) => `blob:${objectUrls.push(blob)}`;
  URL.revokeObjectURL = () => {};
});

afterEach(() => {
  vi.restoreAllMocks();
});

describe("admin agencies tab", { timeout: 15_000 }, () => {
  it("lists agencies with their counts, leaving the UNMAPPED placeholder to its own section", async () => {
    renderTab();
    const row = await agencyRow("Country Fire Authority");
    const cells = within(row)
      .getAllByRole("cell")
      .map((cell) => cell.textContent);
    expect(cells.slice(1, 5)).toEqual(["Country Fire Authority", "CFA", "2", "9"]);
    const table = screen.getByRole("table", { name: "Agencies" });
    expect(within(table).queryByText("Unmapped Capcodes")).not.toBeInTheDocument();
    const unmapped = await screen.findByRole("table", { name: "Unmapped capcodes" });
    const unmappedRow = within(unmapped).getByRole("row", { name: /7654321/ });
    expect(within(unmappedRow).getByText("4")).toBeInTheDocument();
    expect(within(unmappedRow).getByText(/20\/11\/2026/)).toBeInTheDocument();
  });

  it("creates an agency, checks the code first, and reloads the list", async () => {
    let created = false;
    const { server, user } = renderTab({
      "POST /admin/agencies": () => {
        created = true;
        return {
          status: 201,
          body: { success: true, data: { ...cfa, id: 12, name: "Bendigo SES", code: "BSES" } },
        };
      },
      "GET /admin/agencies": () =>
        ok(created ? [cfa, { ...cfa, id: 12, name: "Bendigo SES", code: "BSES" }, unmappedAgency] : [cfa]),
    });
    await user.click(await screen.findByRole("button", { name: "New Agency" }));
    const dialog = await screen.findByRole("dialog", { name: "New Agency" });
    await user.type(within(dialog).getByRole("textbox", { name: "Name" }), "Bendigo SES");
    await user.type(within(dialog).getByRole("textbox", { name: "Code" }), "b ses");
    await user.click(within(dialog).getByRole("button", { name: "Create" }));
    expect(within(dialog).getByText("Code is 1 to 32 letters, digits, '_' or '-'")).toBeInTheDocument();
    expect(server.callsTo("POST /admin/agencies")).toHaveLength(0);

    await user.clear(within(dialog).getByRole("textbox", { name: "Code" }));
    await user.type(within(dialog).getByRole("textbox", { name: "Code" }), "bses");
    await user.click(within(dialog).getByRole("button", { name: "Create" }));
    await waitFor(() => expect(screen.queryByRole("dialog")).not.toBeInTheDocument());
    expect(server.callsTo("POST /admin/agencies")[0]?.body).toEqual({
      name: "Bendigo SES",
      code: "BSES",
      description: null,
    });
    expect(await agencyRow("Bendigo SES")).toBeInTheDocument();
  });

  it("edits an agency and shows the server's refusal when the code is taken", async () => {
    const { server, user } = renderTab({
      "PUT /admin/agencies/2": {
        status: 409,
        body: { success: false, message: "Agency code SES already exists.", errorType: "conflict" },
      },
    });
    await user.click(await screen.findByRole("button", { name: "Edit Country Fire Authority" }));
    const dialog = await screen.findByRole("dialog", { name: "Edit Country Fire Authority" });
    const code = within(dialog).getByRole("textbox", { name: "Code" });
    expect(code).toHaveValue("CFA");
    await user.clear(code);
    await user.type(code, "SES");
    await user.click(within(dialog).getByRole("button", { name: "Save" }));
    expect(await within(dialog).findByRole("alert")).toHaveTextContent("Agency code SES already exists.");
    expect(server.callsTo("PUT /admin/agencies/2")[0]?.body).toEqual({
      name: "Country Fire Authority",
      code: "SES",
      description: null,
    });
  });

  it("asks before deleting and shows why the server refused while capcodes remain", async () => {
    const { server, user } = renderTab({
      "DELETE /admin/agencies/2": {
        status: 409,
        body: {
          success: false,
          message: "Country Fire Authority still has 2 capcodes and cannot be deleted.",
          errorType: "conflict",
        },
      },
    });
    await user.click(await screen.findByRole("button", { name: "Delete Country Fire Authority" }));
    const confirm = await screen.findByRole("alertdialog", { name: "Delete Country Fire Authority?" });
    expect(server.callsTo("DELETE /admin/agencies/2")).toHaveLength(0);
    await user.click(within(confirm).getByRole("button", { name: "Delete" }));
    expect(await within(confirm).findByRole("alert")).toHaveTextContent(
      "Country Fire Authority still has 2 capcodes and cannot be deleted.",
    );
    expect(await agencyRow("Country Fire Authority", true)).toBeInTheDocument();
  });

  it("deletes an agency once confirmed and says so", async () => {
    let deleted = false;
    const { user } = renderTab({
      "DELETE /admin/agencies/2": () => {
        deleted = true;
        return ok(undefined, "Country Fire Authority deleted.");
      },
      "GET /admin/agencies": () => ok(deleted ? [unmappedAgency] : [cfa, unmappedAgency]),
    });
    await user.click(await screen.findByRole("button", { name: "Delete Country Fire Authority" }));
    const confirm = await screen.findByRole("alertdialog", { name: "Delete Country Fire Authority?" });
    await user.click(within(confirm).getByRole("button", { name: "Delete" }));
    expect(await screen.findByRole("status")).toHaveTextContent("Country Fire Authority deleted.");
    await waitFor(() =>
      expect(screen.queryByRole("row", { name: /Country Fire Authority/ })).not.toBeInTheDocument(),
    );
  });

  it("previews a chosen logo, uploads it as multipart field 'logo', and can remove it", async () => {
    const withLogo = { ...cfa, logo_path: "/api/uploads/agency-logos/2-abc.png" };
    let upload: RecordedRequest | undefined;
    const { server, user } = renderTab({
      "POST /admin/agencies/2/logo": (request) => {
        upload = request;
        return ok(withLogo, "Logo uploaded.");
      },
      "DELETE /admin/agencies/2/logo": ok(cfa, "Logo removed."),
    });
    await user.click(await screen.findByRole("button", { name: "Logo of Country Fire Authority" }));
    const dialog = await screen.findByRole("dialog", { name: "Logo of Country Fire Authority" });
    expect(within(dialog).getByText("No logo")).toBeInTheDocument();
    expect(within(dialog).getByRole("button", { name: "Upload" })).toBeDisabled();

    const file = new File([new Uint8Array([0x89, 0x50, 0x4e, 0x47])], "cfa.png", { type: "image/png" });
    await user.upload(within(dialog).getByLabelText("Choose image"), file);
    expect(within(dialog).getByRole("img", { name: "Logo preview" })).toHaveAttribute("src", "blob:1");
    await user.click(within(dialog).getByRole("button", { name: "Upload" }));

    expect(
      await within(dialog).findByRole("img", { name: "Current logo of Country Fire Authority" }),
    ).toHaveAttribute("src", "/api/uploads/agency-logos/2-abc.png");
    expect(upload?.body).toBeInstanceOf(FormData);
    const sent = (upload!.body as FormData).get("logo");
    expect(sent).toBeInstanceOf(File);
    expect((sent as File).name).toBe("cfa.png");

    await user.click(within(dialog).getByRole("button", { name: "Remove logo" }));
    const confirm = await screen.findByRole("alertdialog", { name: "Remove logo?" });
    await user.click(within(confirm).getByRole("button", { name: "Remove" }));
    expect(await within(dialog).findByText("No logo")).toBeInTheDocument();
    expect(server.callsTo("DELETE /admin/agencies/2/logo")).toHaveLength(1);
  });

  it("refuses a logo that is not an allowed image without sending it", async () => {
    const { server, user } = renderTab();
    await user.click(await screen.findByRole("button", { name: "Logo of Country Fire Authority" }));
    const dialog = await screen.findByRole("dialog", { name: "Logo of Country Fire Authority" });
    const file = new File(["GIF89a"], "cfa.gif", { type: "image/gif" });
    await userEvent.setup({ applyAccept: false }).upload(within(dialog).getByLabelText("Choose image"), file);
    expect(within(dialog).getByRole("alert")).toHaveTextContent(
      "A logo must be a PNG, JPEG, WebP or SVG image.",
    );
    expect(within(dialog).getByRole("button", { name: "Upload" })).toBeDisabled();
    expect(server.callsTo("POST /admin/agencies/2/logo")).toHaveLength(0);
  });

  it("lists an agency's capcodes and adds one", async () => {
    const { server, user } = renderTab({
      "POST /admin/capcodes": {
        status: 201,
        body: {
          success: true,
          data: { id: 33, capcode: "0000042", agency_id: 2, alias: "Pump", area: null },
        },
      },
    });
    const dialog = await openCapcodes(user);
    const table = within(dialog).getByRole("table", { name: "Capcodes of Country Fire Authority" });
    expect(within(table).getByRole("row", { name: /1234567 Kangaroo Flat FB Bendigo/ })).toBeInTheDocument();

    const form = within(dialog).getByRole("form", { name: "Add capcode" });
    await user.type(within(form).getByRole("textbox", { name: "Capcode" }), "12x");
    await user.click(within(form).getByRole("button", { name: "Add" }));
    expect(within(form).getByText("1 to 10 digits")).toBeInTheDocument();
    expect(server.callsTo("POST /admin/capcodes")).toHaveLength(0);

    await user.clear(within(form).getByRole("textbox", { name: "Capcode" }));
    await user.type(within(form).getByRole("textbox", { name: "Capcode" }), "42");
    await user.type(within(form).getByRole("textbox", { name: "Alias" }), "Pump");
    await user.click(within(form).getByRole("button", { name: "Add" }));
    expect(await within(dialog).findByRole("status")).toHaveTextContent("Capcode 0000042 added.");
    expect(server.callsTo("POST /admin/capcodes")[0]?.body).toEqual({
      capcode: "42",
      alias: "Pump",
      area: null,
      agency_id: 2,
    });
    await waitFor(() => expect(server.callsTo("GET /admin/agencies/2/capcodes").length).toBeGreaterThan(1));
  });

  it("bulk adds capcodes one a line and shows the server's summary", async () => {
    const { server, user } = renderTab({
      "POST /admin/agencies/2/capcodes/bulk": ok(
        { created: 1, moved: 1, updated: 0, unchanged: 0 },
        "1 created, 1 moved, 0 updated, 0 unchanged.",
      ),
    });
    const dialog = await openCapcodes(user);
    const form = within(dialog).getByRole("form", { name: "Bulk add capcodes" });
    const text = within(form).getByRole("textbox", { name: "Capcodes, one a line" });
    await user.type(text, "12a{Enter}");
    await user.click(within(form).getByRole("button", { name: "Add all" }));
    expect(within(form).getByRole("alert")).toHaveTextContent("Line 1: '12a' is not a capcode");
    await user.clear(text);
    await user.type(text, "1111111, Station 1, Bendigo{Enter}2222222");
    await user.click(within(form).getByRole("button", { name: "Add all" }));
    expect(await within(dialog).findByRole("status")).toHaveTextContent(
      "1 created, 1 moved, 0 updated, 0 unchanged.",
    );
    expect(server.callsTo("POST /admin/agencies/2/capcodes/bulk")[0]?.body).toEqual({
      capcodes: [
        { capcode: "1111111", alias: "Station 1", area: "Bendigo" },
        { capcode: "2222222", alias: null, area: null },
      ],
    });
  });

  it("edits a capcode's alias and area", async () => {
    const { server, user } = renderTab({
      "PUT /admin/capcodes/31": ok({ ...capcodes[0], alias: "KF Tanker", area: null }),
    });
    const dialog = await openCapcodes(user);
    await user.click(within(dialog).getByRole("button", { name: "Edit capcode 1234567" }));
    const edit = await screen.findByRole("dialog", { name: "Edit capcode 1234567" });
    const alias = within(edit).getByRole("textbox", { name: "Alias" });
    expect(alias).toHaveValue("Kangaroo Flat FB");
    await user.clear(alias);
    await user.type(alias, "KF Tanker");
    await user.clear(within(edit).getByRole("textbox", { name: "Area" }));
    await user.click(within(edit).getByRole("button", { name: "Save" }));
    await waitFor(() =>
      expect(screen.queryByRole("dialog", { name: "Edit capcode 1234567" })).not.toBeInTheDocument(),
    );
    expect(server.callsTo("PUT /admin/capcodes/31")[0]?.body).toEqual({
      capcode: "1234567",
      alias: "KF Tanker",
      area: null,
    });
  });

  it("deletes a capcode after asking", async () => {
    const { server, user } = renderTab({
      "DELETE /admin/capcodes/32": ok(undefined, "Capcode 0012345 deleted."),
    });
    const dialog = await openCapcodes(user);
    await user.click(within(dialog).getByRole("button", { name: "Delete capcode 0012345" }));
    const confirm = await screen.findByRole("alertdialog", { name: "Delete capcode 0012345?" });
    await user.click(within(confirm).getByRole("button", { name: "Delete" }));
    expect(await within(dialog).findByRole("status")).toHaveTextContent("Capcode 0012345 deleted.");
    expect(server.callsTo("DELETE /admin/capcodes/32")).toHaveLength(1);
  });

  it("shows a capcode's messages", async () => {
    const { user } = renderTab({
      "GET /admin/capcodes/31/messages": ok([
        {
          id: 9,
          type: "emergency",
          message: "@@ALERT F250000009 GRASS FIRE",
          created_at: "2026-11-20T01:00:00.000Z",
        },
      ]),
    });
    const dialog = await openCapcodes(user);
    await user.click(within(dialog).getByRole("button", { name: "Messages of capcode 1234567" }));
    const messages = await screen.findByRole("dialog", { name: "Messages of capcode 1234567" });
    expect(await within(messages).findByText("ALERT F250000009 GRASS FIRE")).toBeInTheDocument();
  });

  it("assigns an unmapped capcode from its list, which then no longer lists it", async () => {
    let assigned = false;
    const { server, user } = renderTab({
      "POST /admin/capcodes/77/assign": () => {
        assigned = true;
        return ok({ moved_alerts: 4 }, "Capcode 7654321 assigned to Country Fire Authority.");
      },
      "GET /admin/capcodes/unmapped": () =>
        ok(
          assigned
            ? []
            : [
                {
                  id: 77,
                  capcode: "7654321",
                  agency_id: 9,
                  alias: null,
                  area: null,
                  message_count: 4,
                  last_seen: null,
                },
              ],
        ),
    });
    await user.click(await screen.findByRole("button", { name: "Assign capcode 7654321" }));
    const dialog = await screen.findByRole("dialog", { name: "Assign Capcode 7654321" });
    await user.selectOptions(within(dialog).getByRole("combobox", { name: "Agency" }), "2");
    await user.click(within(dialog).getByRole("button", { name: "Assign" }));
    expect(await screen.findByRole("dialog", { name: "Capcode Assigned!" })).toHaveTextContent(
      "Capcode 7654321 is now assigned to Country Fire Authority.",
    );
    expect(server.callsTo("POST /admin/capcodes/77/assign")[0]?.body).toEqual({ agency_id: 2, alias: null });
    expect(
      await screen.findByText("Every capcode paged so far belongs to an agency.", {}, { timeout: 5_000 }),
    ).toBeInTheDocument();
  });

  it("previews a PagerMon CSV import (created, changed, refused), then applies it with dry_run false", async () => {
    const csv =
      "address,alias,agency,icon,color,pluginconf,ignore\n1234567,KF,CFA,fire,red,{},0\n7654321,X,NOPE,,,,0";
    const result = (applied: boolean) =>
      ok({
        applied,
        created: [{ line: 2, capcode: "1234567", agency: "CFA", alias: "KF", area: null }],
        changed: [
          {
            line: 3,
            capcode: "0012345",
            from: { agency: "UNMAPPED", alias: null, area: null },
            to: { agency: "CFA", alias: "Tanker", area: "Bendigo" },
          },
        ],
        unchanged: 0,
        refused: [{ line: 4, reason: "Unknown agency 'NOPE'." }],
      });
    const { server, user } = renderTab({
      "POST /admin/capcodes/import": (request) =>
        result((request.body as { dry_run: boolean }).dry_run === false),
    });
    await user.click(await screen.findByRole("button", { name: "Import CSV" }));
    const dialog = await screen.findByRole("dialog", { name: "Import Capcodes (PagerMon CSV)" });
    expect(within(dialog).getByRole("button", { name: "Apply" })).toBeDisabled();
    await user.upload(
      within(dialog).getByLabelText("Choose CSV file"),
      new File([csv], "capcodes.csv", { type: "text/csv" }),
    );
    await waitFor(() => expect(within(dialog).getByRole("textbox", { name: "CSV" })).toHaveValue(csv));
    await user.click(within(dialog).getByRole("button", { name: "Preview" }));

    expect(await within(dialog).findByRole("status")).toHaveTextContent(
      "Preview (nothing saved yet): 1 to create, 1 to change, 0 unchanged, 1 refused.",
    );
    expect(within(dialog).getByRole("region", { name: "Will be created" })).toHaveTextContent(
      "Line 2: 1234567 → CFA · KF",
    );
    expect(within(dialog).getByRole("region", { name: "Will be changed" })).toHaveTextContent(
      "Line 3: 0012345: UNMAPPED → CFA · Tanker · Bendigo",
    );
    expect(within(dialog).getByRole("region", { name: "Refused" })).toHaveTextContent(
      "Line 4: Unknown agency 'NOPE'.",
    );
    expect(server.callsTo("POST /admin/capcodes/import")[0]?.body).toEqual({ csv, dry_run: true });

    await user.click(within(dialog).getByRole("button", { name: "Apply" }));
    expect(await within(dialog).findByText(/^Imported: 1 created, 1 changed/)).toBeInTheDocument();
    expect(server.callsTo("POST /admin/capcodes/import")[1]?.body).toEqual({ csv, dry_run: false });
    // What was applied is what the preview showed: changing the text asks for a new preview first.
    await user.type(within(dialog).getByRole("textbox", { name: "CSV" }), "\n1,a,CFA,,,,0");
    expect(within(dialog).getByRole("button", { name: "Apply" })).toBeDisabled();
  });

  it("exports the capcodes as capcodes.csv", async () => {
    const csv = "address,alias,agency,icon,color,pluginconf,ignore,area\n1234567,KF,CFA,,,,0,Bendigo\n";
    const clicks: HTMLAnchorElement[] = [];
    vi.spyOn(HTMLAnchorElement.prototype, "click").mockImplementation(function (this: HTMLAnchorElement) {
      clicks.push(this);
    });
    const { server, user } = renderTab({
      "GET /admin/capcodes/export": { body: csv, headers: { "Content-Type": "text/csv" } },
    });
    await user.click(await screen.findByRole("button", { name: "Export CSV" }));
    await waitFor(() => expect(clicks).toHaveLength(1));
    expect(server.callsTo("GET /admin/capcodes/export")).toHaveLength(1);
    expect(clicks[0]?.download).toBe(EXPORT_FILE_NAME);
    expect(clicks[0]?.href).toBe("blob:1");
    expect(await readBlob(objectUrls[0]!)).toBe(csv);
  });
});
