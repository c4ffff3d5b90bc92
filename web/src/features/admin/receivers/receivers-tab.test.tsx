import { act, render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { publishLiveEvent } from "../../../api/live-events";
import { AppProviders, createQueryClient } from "../../../app/providers";
import { mockApi } from "../../../testing/mock-api";
import { ReceiversTab } from "./receivers-tab";

vi.setConfig({ testTimeout: 20_000 });

const minutesAgo = (m: number) => new Date(Date.now() - m * 60_000).toISOString();

function receiver(overrides: Record<string, unknown> = {}) {
  return {
    id: 2,
    name: "Bendigo roof",
    location: "Bendigo fire station",
    kind: "receiver",
    expected_capcodes: ["0200001"],
    expected_agency_ids: [],
    agency_ids: [],
    heartbeat_interval_seconds: 60,
    down_after_seconds: 600,
    quiet_after_seconds: null,
    learned_quiet_seconds: null,
    state: "ok",
    state_since: minutesAgo(30),
    current_state: "ok",
    last_seen_at: minutesAgo(0.5),
    last_heartbeat_at: minutesAgo(0.5),
    last_message_at: minutesAgo(12),
    spool_depth: 3,
    dead_letters: 1,
    decoder: "ok",
    decoder_last_line_at: minutesAgo(1),
    uptime_seconds: 3600,
    version: "turnout-reader 0.1.0",
    pages_per_hour: Array.from({ length: 24 }, (_, i) => i % 3),
    keys: [
      {
        id: 5,
        key_prefix: "trk_abcdefgh",
        created_at: minutesAgo(600),
        last_used_at: minutesAgo(1),
        expires_at: null,
        revoked_at: null,
        valid: true,
      },
    ],
    created_at: minutesAgo(600),
    ...overrides,
  };
}

const legacy = receiver({
  id: 1,
  name: "Legacy shared key (INGEST_API_KEY)",
  location: null,
  kind: "legacy",
  current_state: "unknown",
  state: "unknown",
  last_seen_at: null,
  last_heartbeat_at: null,
  last_message_at: null,
  spool_depth: null,
  dead_letters: null,
  decoder: null,
  version: null,
  keys: [],
});

const AGENCIES = [
  { id: 7, name: "Country Fire Authority", code: "CFA" },
  { id: 8, name: "State Emergency Service", code: "SES" },
  { id: 99, name: "Unmapped Capcodes", code: "UNMAPPED" },
];

function renderTab() {
  const user = userEvent.setup();
  render(
    <AppProviders queryClient={createQueryClient()}>
      <ReceiversTab />
    </AppProviders>,
  );
  return { user };
}

describe("Receivers tab", () => {
  it("shows each receiver's state, heartbeat, last page, pages per hour, spool, dead letters and version", async () => {
    mockApi({ "GET /admin/receivers": { body: { success: true, data: [legacy, receiver()] } } });
    renderTab();
    const row = (await screen.findByText("Bendigo roof")).closest("tr")!;
    const cells = within(row);
    expect(cells.getByLabelText("State: OK")).toBeInTheDocument();
    expect(row).toHaveTextContent("30 s ago");
    expect(row).toHaveTextContent("12 min ago");
    expect(
      cells.getByRole("img", { name: "24 pages in the last 24 hours, at most 2 in an hour" }),
    ).toBeInTheDocument();
    expect(row).toHaveTextContent("turnout-reader 0.1.0");
    expect(cells.getByRole("button", { name: "Keys of Bendigo roof" })).toHaveTextContent("1 valid");
    const legacyRow = screen.getByText("Legacy shared key (INGEST_API_KEY)").closest("tr")!;
    expect(within(legacyRow).getByLabelText("State: Not heard yet")).toBeInTheDocument();
    expect(legacyRow).toHaveTextContent("INGEST_API_KEY");
    expect(within(legacyRow).queryByRole("button", { name: /Delete/ })).not.toBeInTheDocument();
  });

  it("adds a receiver and shows its key once", async () => {
    const server = mockApi({
      "GET /admin/receivers": { body: { success: true, data: [legacy] } },
      "POST /admin/receivers": {
        status: 201,
        body: {
          success: true,
          data: {
            ...receiver({ id: 9, name: "Ballarat" }),
            key: { ...receiver().keys[0], id: 9, key: "trk_secretkeyvalue" },
          },
        },
      },
    });
    const { user } = renderTab();
    await user.click(await screen.findByRole("button", { name: "Add receiver" }));
    const dialog = screen.getByRole("dialog", { name: "Add receiver" });
    await user.type(within(dialog).getByLabelText(/Name/), "Ballarat");
    await user.type(within(dialog).getByLabelText("Expected capcodes"), "0200001, 0200002");
    await user.click(within(dialog).getByRole("button", { name: "Add" }));
    const shown = await screen.findByRole("dialog", { name: "Key for Ballarat" });
    expect(within(shown).getByLabelText("Ingest key")).toHaveValue("trk_secretkeyvalue");
    const post = server.requests.find((r) => r.method === "POST");
    expect(post?.body).toMatchObject({
      name: "Ballarat",
      expected_capcodes: ["0200001", "0200002"],
      expected_agency_ids: [],
      heartbeat_interval_seconds: 60,
      down_after_seconds: 600,
      quiet_after_seconds: null,
    });
  });

  it("issues a new key and revokes one, after asking, from the keys dialog", async () => {
    const server = mockApi({
      "GET /admin/receivers": { body: { success: true, data: [receiver()] } },
      "POST /admin/receivers/2/keys": {
        status: 201,
        body: { success: true, data: { ...receiver().keys[0], id: 6, key: "trk_newkeyvalue" } },
      },
      "DELETE /admin/receivers/2/keys/5": { body: { success: true, message: "Key revoked." } },
    });
    const { user } = renderTab();
    await user.click(await screen.findByRole("button", { name: "Keys of Bendigo roof" }));
    const dialog = screen.getByRole("dialog", { name: "Keys of Bendigo roof" });
    await user.click(within(dialog).getByRole("button", { name: "Revoke key trk_abcdefgh" }));
    const ask = await screen.findByRole("alertdialog", { name: "Revoke key trk_abcdefgh…?" });
    expect(server.requests.some((r) => r.method === "DELETE")).toBe(false);
    await user.click(within(ask).getByRole("button", { name: "Revoke" }));
    await waitFor(() => expect(server.requests.some((r) => r.method === "DELETE")).toBe(true));
    await waitFor(() => expect(screen.queryByRole("alertdialog")).not.toBeInTheDocument());
    await user.click(within(dialog).getByRole("button", { name: "New key" }));
    expect(await screen.findByRole("dialog", { name: "Key for Bendigo roof" })).toBeInTheDocument();
    expect(server.requests.find((r) => r.method === "POST")?.body).toEqual({ grace_hours: 24 });
  });

  it("says when the receivers cannot be loaded, with Retry", async () => {
    mockApi({ "GET /admin/receivers": { status: 500, body: { success: false, message: "Database down" } } });
    renderTab();
    expect(await screen.findByText(/Receivers could not be loaded/)).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Retry" })).toBeInTheDocument();
  });

  it("edits a receiver, sending only what changed, with expected agencies picked by name", async () => {
    let current = receiver();
    const server = mockApi({
      "GET /admin/receivers": () => ({ body: { success: true, data: [legacy, current] } }),
      "GET /admin/agencies": { body: { success: true, data: AGENCIES } },
      "PATCH /admin/receivers/2": (request) => {
        current = receiver({ ...(request.body as object), expected_agency_ids: [7] });
        return { body: { success: true, data: current } };
      },
    });
    const { user } = renderTab();
    await user.click(await screen.findByRole("button", { name: "Edit Bendigo roof" }));
    const dialog = await screen.findByRole("dialog", { name: "Edit Bendigo roof" });
    expect(within(dialog).getByLabelText(/Name/)).toHaveValue("Bendigo roof");
    expect(within(dialog).getByLabelText("Expected capcodes")).toHaveValue("0200001");
    expect(within(dialog).getByLabelText("Quiet after (s)")).toHaveValue("");
    await user.clear(within(dialog).getByLabelText("Location"));
    await user.type(within(dialog).getByLabelText("Location"), "Water tower");
    await user.type(within(dialog).getByLabelText("Expected capcodes"), " 200002");
    await user.type(within(dialog).getByLabelText("Quiet after (s)"), "7200");
    await user.click(within(dialog).getByLabelText("Expected agencies"));
    await user.click(await screen.findByRole("option", { name: "Country Fire Authority (CFA)" }));
    await user.click(within(dialog).getByRole("button", { name: "Save" }));

    expect(await screen.findByRole("status")).toHaveTextContent("Bendigo roof saved.");
    await waitFor(() => expect(screen.queryByRole("dialog")).not.toBeInTheDocument());
    expect(server.callsTo("PATCH /admin/receivers/2").map((r) => r.body)).toEqual([
      {
        location: "Water tower",
        expected_capcodes: ["0200001", "0200002"],
        expected_agency_ids: [7],
        quiet_after_seconds: 7200,
      },
    ]);
    const row = (await screen.findByText("Water tower")).closest("tr")!;
    expect(row).toHaveTextContent("Bendigo roof");
  });

  it("names what is wrong before sending, and shows the server's refusal on its field", async () => {
    const server = mockApi({
      "GET /admin/receivers": { body: { success: true, data: [receiver()] } },
      "GET /admin/agencies": { body: { success: true, data: AGENCIES } },
      "PATCH /admin/receivers/2": {
        status: 400,
        body: {
          success: false,
          errorType: "validation_error",
          message: "Invalid body.name: name is taken",
          fields: [{ field: "body.name", message: "name is taken" }],
        },
      },
    });
    const { user } = renderTab();
    await user.click(await screen.findByRole("button", { name: "Edit Bendigo roof" }));
    const dialog = await screen.findByRole("dialog", { name: "Edit Bendigo roof" });
    await user.clear(within(dialog).getByLabelText(/Name/));
    await user.clear(within(dialog).getByLabelText("Heartbeat every (s)"));
    await user.type(within(dialog).getByLabelText("Heartbeat every (s)"), "2");
    await user.type(within(dialog).getByLabelText("Expected capcodes"), " 12A");
    await user.click(within(dialog).getByRole("button", { name: "Save" }));
    expect(within(dialog).getByText("name is required")).toBeInTheDocument();
    expect(
      within(dialog).getByText(
        "heartbeat_interval_seconds must be a whole number of seconds from 5 to 86400",
      ),
    ).toBeInTheDocument();
    expect(within(dialog).getByText("A capcode is 1 to 10 digits.")).toBeInTheDocument();
    expect(server.callsTo("PATCH /admin/receivers/2")).toHaveLength(0);

    await user.type(within(dialog).getByLabelText(/Name/), "Kyneton");
    await user.clear(within(dialog).getByLabelText("Heartbeat every (s)"));
    await user.type(within(dialog).getByLabelText("Heartbeat every (s)"), "60");
    await user.clear(within(dialog).getByLabelText("Expected capcodes"));
    await user.click(within(dialog).getByRole("button", { name: "Save" }));
    expect(await within(dialog).findByText("name is taken")).toBeInTheDocument();
    expect(server.callsTo("PATCH /admin/receivers/2").map((r) => r.body)).toEqual([
      { name: "Kyneton", expected_capcodes: [] },
    ]);
  });

  it("reads the list again when the admin channel says a receiver changed", async () => {
    let state = "ok";
    const server = mockApi({
      "GET /admin/receivers": () => ({
        body: { success: true, data: [receiver({ current_state: state, state })] },
      }),
    });
    renderTab();
    const row = (await screen.findByText("Bendigo roof")).closest("tr")!;
    expect(within(row).getByLabelText("State: OK")).toBeInTheDocument();
    state = "down";
    act(() => publishLiveEvent("receivers:changed", { receiver_ids: [2] }));
    expect(await within(row).findByLabelText("State: Down")).toBeInTheDocument();
    // In the admins' room again after a drop: news may have been missed, so the list is read again.
    state = "ok";
    act(() => publishLiveEvent("joined-admin", { success: true }));
    expect(await within(row).findByLabelText("State: OK")).toBeInTheDocument();
    expect(server.callsTo("GET /admin/receivers")).toHaveLength(3);
  });

  it("deletes a receiver after asking, and says so", async () => {
    let rows = [legacy, receiver()];
    const server = mockApi({
      "GET /admin/receivers": () => ({ body: { success: true, data: rows } }),
      "DELETE /admin/receivers/2": () => {
        rows = [legacy];
        return { body: { success: true, message: "Receiver deleted." } };
      },
    });
    const { user } = renderTab();
    await user.click(await screen.findByRole("button", { name: "Delete Bendigo roof" }));
    const ask = await screen.findByRole("alertdialog", { name: "Delete Bendigo roof?" });
    expect(ask).toHaveTextContent("Its keys stop working at once.");
    await user.click(within(ask).getByRole("button", { name: "Delete" }));
    expect(await screen.findByRole("status")).toHaveTextContent("Bendigo roof deleted.");
    await waitFor(() => expect(screen.queryByText("Bendigo roof")).not.toBeInTheDocument());
    expect(server.callsTo("DELETE /admin/receivers/2")).toHaveLength(1);
  });
});
