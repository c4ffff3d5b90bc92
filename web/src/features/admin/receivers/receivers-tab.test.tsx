import { render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
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
    expect(row).toHaveTextContent("1 valid");
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
      heartbeat_interval_seconds: 60,
      down_after_seconds: 600,
      quiet_after_seconds: null,
    });
  });

  it("issues a new key and revokes one from the keys dialog", async () => {
    const server = mockApi({
      "GET /admin/receivers": { body: { success: true, data: [receiver()] } },
      "POST /admin/receivers/2/keys": {
        status: 201,
        body: { success: true, data: { ...receiver().keys[0], id: 6, key: "trk_newkeyvalue" } },
      },
      "DELETE /admin/receivers/2/keys/5": { body: { success: true, message: "Key revoked." } },
    });
    const { user } = renderTab();
    await user.click(await screen.findByRole("button", { name: "1 valid" }));
    const dialog = screen.getByRole("dialog", { name: "Keys of Bendigo roof" });
    await user.click(within(dialog).getByRole("button", { name: "Revoke" }));
    await waitFor(() => expect(server.requests.some((r) => r.method === "DELETE")).toBe(true));
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
});
