import { render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { AppProviders, createQueryClient } from "../../app/providers";
import { mockApi } from "../../testing/mock-api";
import { storeSession } from "../../testing/session-fixtures";
import { MyUnitsDialog } from "./my-units-dialog";

vi.setConfig({ testTimeout: 15_000 });

const unit = (id: number, name: string, distance_km: number | null) => ({
  id,
  name,
  code: null,
  agency_id: 2,
  agency_name: "CFA",
  suburb: null,
  state: "VIC",
  distance_km,
});

function renderDialog(routes: Parameters<typeof mockApi>[0]) {
  const server = mockApi(routes);
  storeSession();
  const onSaved = vi.fn();
  const onClose = vi.fn();
  render(
    <AppProviders queryClient={createQueryClient()}>
      <MyUnitsDialog open onClose={onClose} onSaved={onSaved} />
    </AppProviders>,
  );
  return { server, onSaved, onClose, user: userEvent.setup() };
}

describe("My units", () => {
  it("offers the agencies' units nearest first with the member's own ticked, and saves the choice", async () => {
    const { server, onSaved, onClose, user } = renderDialog({
      "GET /units/mine": {
        body: { data: { units: [{ id: 10, name: "Kangaroo Flat", agency_id: 2, agency_name: "CFA" }] } },
      },
      "GET /units": { body: { data: [unit(10, "Kangaroo Flat", 2), unit(11, "Golden Square", 4)] } },
      "PUT /units/mine": { body: { data: { units: [] } } },
    });
    const list = await screen.findByRole("group", { name: "Nearest first" });
    const boxes = within(list).getAllByRole("checkbox");
    expect(boxes.map((b) => b.closest("label")?.textContent)).toEqual([
      "Kangaroo Flat \u00b7 CFA \u00b7 2 km",
      "Golden Square \u00b7 CFA \u00b7 4 km",
    ]);
    expect(boxes[0]).toBeChecked();
    expect(screen.getByRole("button", { name: "Save" })).toBeDisabled();
    await user.click(boxes[1]!);
    await user.click(boxes[0]!);
    await user.click(screen.getByRole("button", { name: "Save" }));
    await waitFor(() => expect(onSaved).toHaveBeenCalled());
    expect(server.callsTo("PUT /units/mine")[0]?.body).toEqual({ unit_ids: [11] });
    expect(onClose).toHaveBeenCalled();
  });

  it("finds units by name and shows the server's reason when saving fails", async () => {
    const { server, user } = renderDialog({
      "GET /units/mine": { body: { data: { units: [] } } },
      "GET /units": (request) => ({
        body: { data: request.query.get("name") === "hot" ? [unit(12, "Hotham Heights", 258)] : [] },
      }),
      "PUT /units/mine": {
        status: 400,
        body: { success: false, message: "You can only choose units of the agencies you are assigned to." },
      },
    });
    expect(await screen.findByText("Your agencies have no units yet.")).toBeInTheDocument();
    await user.type(screen.getByLabelText("Find a unit by name"), "hot");
    await user.click(await screen.findByRole("checkbox", { name: /Hotham Heights/ }));
    await user.click(screen.getByRole("button", { name: "Save" }));
    expect(await screen.findByRole("alert")).toHaveTextContent("You can only choose units of the agencies");
    expect(server.callsTo("GET /units").at(-1)?.query.get("name")).toBe("hot");
  });
});
