import { render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { AppProviders, createQueryClient } from "../../app/providers";
import { mockApi } from "../../testing/mock-api";
import { storeSession } from "../../testing/session-fixtures";
import { MyDevicesDialog } from "./my-devices-dialog";

vi.setConfig({ testTimeout: 15_000 });

const device = (id: string, info: string) => ({
  id,
  device_info: info,
  created_at: "2026-11-20T08:00:00.000Z",
  last_used_at: "2026-11-27T09:30:00.000Z",
  expires_at: "2027-11-20T08:00:00.000Z",
});

function renderDialog(routes: Parameters<typeof mockApi>[0]) {
  const server = mockApi(routes);
  storeSession();
  render(
    <AppProviders queryClient={createQueryClient()}>
      <MyDevicesDialog open onClose={() => undefined} />
    </AppProviders>,
  );
  return { server, user: userEvent.setup() };
}

describe("My devices", () => {
  it("lists the recognised devices and removes one after asking", async () => {
    let devices = [device("a1", "Chrome on Android (Mobile)"), device("b2", "Safari on iOS (Tablet)")];
    const { server, user } = renderDialog({
      "GET /auth/devices": () => ({ body: { success: true, data: devices } }),
      "DELETE /auth/devices/*": (request) => {
        devices = devices.filter((d) => !request.path.endsWith(d.id));
        return { body: { success: true, message: "Device removed: it signs in as a new device next time." } };
      },
    });
    const list = await screen.findByRole("list", { name: "Recognised devices" });
    expect(within(list).getAllByRole("listitem")).toHaveLength(2);
    await user.click(screen.getByRole("button", { name: "Remove Safari on iOS (Tablet)" }));
    expect(screen.getByText(/Remove Safari on iOS \(Tablet\)\? It stays signed in/)).toBeInTheDocument();
    expect(server.callsTo("DELETE /auth/devices/b2")).toHaveLength(0);
    await user.click(
      within(screen.getByText(/stays signed in/).closest("[role=alert]")!).getByRole("button", {
        name: "Remove",
      }),
    );
    expect(await screen.findByRole("status")).toHaveTextContent("signs in as a new device next time");
    await waitFor(() => expect(within(list).getAllByRole("listitem")).toHaveLength(1));
    expect(server.callsTo("DELETE /auth/devices/b2")).toHaveLength(1);
  });

  it("shows the server's reason when a device cannot be removed, and a load failure with Retry", async () => {
    let failLoad = true;
    const { user } = renderDialog({
      "GET /auth/devices": () =>
        failLoad
          ? { status: 503, body: { success: false, message: "Please try again in a few seconds." } }
          : { body: { success: true, data: [device("a1", "Firefox on Linux (Desktop)")] } },
      "DELETE /auth/devices/*": { status: 404, body: { success: false, message: "Device not found" } },
    });
    expect(
      await screen.findByText("Please try again in a few seconds.", {}, { timeout: 10_000 }),
    ).toBeInTheDocument();
    failLoad = false;
    await user.click(screen.getByRole("button", { name: "Retry" }));
    await user.click(await screen.findByRole("button", { name: "Remove Firefox on Linux (Desktop)" }));
    await user.click(
      within(screen.getByText(/stays signed in/).closest("[role=alert]")!).getByRole("button", {
        name: "Remove",
      }),
    );
    expect(await screen.findByText("Device not found")).toBeInTheDocument();
  });
});
