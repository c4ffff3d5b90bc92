import { render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { AppProviders, createQueryClient } from "../../../app/providers";
import { adminRoutes } from "../../../testing/admin/admin-fixtures";
import { type MockApi, mockApi } from "../../../testing/mock-api";
import { DisplaysTab } from "./displays-tab";

// Dialog journeys type a lot; a loaded machine needs more than the default 5 s.
vi.setConfig({ testTimeout: 20_000 });

function display(overrides: Record<string, unknown> = {}) {
  return {
    id: 1,
    unit_id: 7,
    unit_name: "Kangaroo Flat",
    name: "Engine bay TV",
    idle_minutes: 30,
    paired: true,
    paired_at: "2026-11-27T01:00:00.000Z",
    last_seen_at: "2026-11-27T02:00:00.000Z",
    ...overrides,
  };
}

const units = [
  { id: 7, name: "Kangaroo Flat", agency_name: "Country Fire Authority" },
  { id: 8, name: "Golden Square", agency_name: "Country Fire Authority" },
];

/** The admin fakes, with displays that change as the tab asks. */
function fakeServer(initial = [display(), display({ id: 2, name: "Hall screen", paired: false })]) {
  const state = { displays: initial };
  const idOf = (path: string, at: number) => Number(path.split("/").at(at));
  const server = mockApi(
    adminRoutes({
      "GET /admin/displays": () => ({ body: { success: true, data: state.displays } }),
      "GET /admin/displays/units": { body: { success: true, data: units } },
      "POST /admin/displays": (request) => {
        const body = request.body as { unit_id: number; name: string; idle_minutes: number };
        const created = display({
          id: 3,
          ...body,
          unit_name: units.find((u) => u.id === body.unit_id)?.name,
          paired: false,
          last_seen_at: null,
        });
        state.displays = [...state.displays, created];
        return { status: 201, body: { success: true, data: created } };
      },
      "POST /admin/displays/*": (request) => {
        const id = idOf(request.path, -2);
        if (request.path.endsWith("/pair")) {
          if ((request.body as { code: string }).code !== "K7M2QX")
            return {
              status: 400,
              body: {
                success: false,
                errorType: "validation_error",
                message: "No screen shows that code. Codes work once and expire after 10 minutes.",
              },
            };
          state.displays = state.displays.map((d) => (d.id === id ? { ...d, paired: true } : d));
        } else {
          state.displays = state.displays.map((d) => (d.id === id ? { ...d, paired: false } : d));
        }
        return { body: { success: true, data: state.displays.find((d) => d.id === id) } };
      },
      "DELETE /admin/displays/*": (request) => {
        const id = idOf(request.path, -1);
        state.displays = state.displays.filter((d) => d.id !== id);
        return { body: { success: true } };
      },
    }),
  );
  return { server, state };
}

function renderTab() {
  const user = userEvent.setup();
  render(
    <AppProviders queryClient={createQueryClient()}>
      <DisplaysTab />
    </AppProviders>,
  );
  return { user };
}

/** The requests to paths under `prefix` with this method. */
const callsUnder = (server: MockApi, method: string, prefix: string) =>
  server.requests.filter((r) => r.method === method && r.path.startsWith(prefix));

const rowOf = async (name: string) => (await screen.findByRole("cell", { name })).closest("tr")!;

describe("Displays tab", () => {
  it("lists each display with its unit, screen, idle time and last seen, and says when there are none", async () => {
    fakeServer();
    renderTab();
    const row = await rowOf("Engine bay TV");
    expect(row).toHaveTextContent("Kangaroo Flat");
    expect(row).toHaveTextContent("Paired");
    expect(row).toHaveTextContent("30 min");
    expect(within(row).getByRole("button", { name: "Sign out the screen of Engine bay TV" })).toBeVisible();
    const unpaired = await rowOf("Hall screen");
    expect(unpaired).toHaveTextContent("Not paired");
    expect(within(unpaired).queryByRole("button", { name: /Sign out/ })).not.toBeInTheDocument();
  });

  it("says when there are no displays yet", async () => {
    fakeServer([]);
    renderTab();
    expect(await screen.findByText("No displays yet.")).toBeInTheDocument();
  });

  it("shows a failed load with Retry, which asks again", async () => {
    const { server } = fakeServer();
    let failing = true;
    server.on("GET /admin/displays", () =>
      failing
        ? { status: 500, body: { success: false, errorType: "server_error", message: "Database down." } }
        : { body: { success: true, data: [display()] } },
    );
    const { user } = renderTab();
    const alert = await screen.findByText(/The displays could not be loaded/, {}, { timeout: 10_000 });
    failing = false;
    await user.click(
      within(alert.closest("[role=alert]") as HTMLElement).getByRole("button", { name: "Retry" }),
    );
    expect(await rowOf("Engine bay TV")).toBeInTheDocument();
  });

  it("adds a display, refusing a missing name and an idle time out of range first", async () => {
    const { server } = fakeServer([]);
    const { user } = renderTab();
    await screen.findByText("No displays yet.");
    await user.click(screen.getByRole("button", { name: "Add display" }));
    const dialog = screen.getByRole("dialog", { name: "Add display" });
    const idle = within(dialog).getByRole("textbox", { name: "Idle clock after (minutes)" });
    await user.clear(idle);
    await user.type(idle, "0");
    await user.click(within(dialog).getByRole("button", { name: "Add display" }));
    expect(within(dialog).getByText("Choose the unit whose jobs the screen shows.")).toBeInTheDocument();
    expect(within(dialog).getByText("Give the display a name.")).toBeInTheDocument();
    expect(within(dialog).getByText("A whole number of minutes from 1 to 1440.")).toBeInTheDocument();
    expect(server.callsTo("POST /admin/displays")).toHaveLength(0);

    await user.click(within(dialog).getByRole("combobox", { name: /Unit/ }));
    await user.click(await screen.findByRole("option", { name: "Golden Square (Country Fire Authority)" }));
    await user.type(within(dialog).getByRole("textbox", { name: /Display name/ }), "  Turnout TV ");
    await user.clear(idle);
    await user.type(idle, "5");
    await user.click(within(dialog).getByRole("button", { name: "Add display" }));
    await waitFor(() =>
      expect(screen.queryByRole("dialog", { name: "Add display" })).not.toBeInTheDocument(),
    );
    expect(server.callsTo("POST /admin/displays")[0]!.body).toEqual({
      unit_id: 8,
      name: "Turnout TV",
      idle_minutes: 5,
    });
    const row = await rowOf("Turnout TV");
    expect(row).toHaveTextContent("Golden Square");
    expect(row).toHaveTextContent("Not paired");
  });

  it("pairs a screen by its code, showing the server's refusal of a wrong one", async () => {
    const { server } = fakeServer();
    const { user } = renderTab();
    await user.click(await screen.findByRole("button", { name: "Pair Hall screen" }));
    const dialog = screen.getByRole("dialog", { name: "Pair Hall screen" });
    const code = within(dialog).getByRole("textbox", { name: /Code on the screen/ });
    await user.type(code, "K7M");
    await user.click(within(dialog).getByRole("button", { name: "Pair" }));
    expect(
      within(dialog).getByText("The code has 6 letters and digits, as the screen shows it."),
    ).toBeVisible();
    expect(callsUnder(server, "POST", "/admin/displays/")).toHaveLength(0);

    await user.clear(code);
    await user.type(code, "abc-def");
    await user.click(within(dialog).getByRole("button", { name: "Pair" }));
    expect(await within(dialog).findByRole("alert")).toHaveTextContent("No screen shows that code.");

    await user.clear(code);
    await user.type(code, "k7m 2qx");
    await user.click(within(dialog).getByRole("button", { name: "Pair" }));
    await waitFor(() =>
      expect(screen.queryByRole("dialog", { name: "Pair Hall screen" })).not.toBeInTheDocument(),
    );
    expect(server.requests.filter((r) => r.path === "/admin/displays/2/pair").map((r) => r.body)).toEqual([
      { code: "ABCDEF" },
      { code: "K7M2QX" },
    ]);
    await waitFor(async () => expect(await rowOf("Hall screen")).not.toHaveTextContent("Not paired"));
  });

  it("asks before signing a screen out and before removing a display", async () => {
    const { server } = fakeServer();
    const { user } = renderTab();
    await user.click(await screen.findByRole("button", { name: "Sign out the screen of Engine bay TV" }));
    const ask = screen.getByRole("alertdialog", { name: "Sign the screen out?" });
    await user.click(within(ask).getByRole("button", { name: "Cancel" }));
    expect(callsUnder(server, "POST", "/admin/displays/")).toHaveLength(0);

    await user.click(await screen.findByRole("button", { name: "Sign out the screen of Engine bay TV" }));
    await user.click(
      within(screen.getByRole("alertdialog", { name: "Sign the screen out?" })).getByRole("button", {
        name: "Sign out",
      }),
    );
    await waitFor(async () => expect(await rowOf("Engine bay TV")).toHaveTextContent("Not paired"));
    expect(server.requests.some((r) => r.method === "POST" && r.path === "/admin/displays/1/unpair")).toBe(
      true,
    );

    await user.click(await screen.findByRole("button", { name: "Remove Hall screen" }));
    await user.click(
      within(screen.getByRole("alertdialog", { name: "Remove display?" })).getByRole("button", {
        name: "Remove",
      }),
    );
    await waitFor(() => expect(screen.queryByRole("cell", { name: "Hall screen" })).not.toBeInTheDocument());
    expect(callsUnder(server, "DELETE", "/admin/displays/").map((r) => r.path)).toEqual([
      "/admin/displays/2",
    ]);
  });
});
