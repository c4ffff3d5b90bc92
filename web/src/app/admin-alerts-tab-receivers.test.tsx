import { render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { feedPage, makeAlert, makeGroup } from "../features/alerts/alert-fixtures";
import { RespondingProvider } from "../features/responding";
import { type MockRoute, mockApi } from "../testing/mock-api";
import { storeSession, testUser } from "../testing/session-fixtures";
import { AlertsTab } from "./admin-console-page";
import { AppProviders, createQueryClient } from "./providers";

const shed = makeAlert({ id: 700, type: "standard", message: "F250000700 SHED ALARM TEST" });
const firstHeard = "2026-03-01T09:15:00.000Z";

function renderTab(routes: Record<string, MockRoute>) {
  const admin = { ...testUser, is_admin: true };
  const server = mockApi({
    "GET /alerts/search": feedPage([makeGroup(shed)]),
    "GET /alerts/responses": { body: { success: true, data: [] } },
    "GET /alerts/700": { body: { success: true, data: shed } },
    ...routes,
  });
  storeSession({ user: admin });
  const user = userEvent.setup();
  render(
    <AppProviders queryClient={createQueryClient()}>
      <RespondingProvider userId={admin.id}>
        <AlertsTab />
      </RespondingProvider>
    </AppProviders>,
  );
  return { server, user };
}

const heard = (overrides: Record<string, unknown>) => ({
  receiver_id: 3,
  name: "Bendigo roof",
  kind: "receiver",
  first_heard_at: firstHeard,
  last_heard_at: firstHeard,
  messages: 1,
  deleted: false,
  ...overrides,
});

describe("admin alerts tab: which receivers heard a page", { timeout: 15_000 }, () => {
  it("names every receiver that heard the job's page in the job view, deleted ones included", async () => {
    const { server, user } = renderTab({
      "GET /admin/alerts/700/receivers": {
        body: {
          success: true,
          data: [
            heard({ messages: 2 }),
            heard({ receiver_id: 4, name: "Kyneton hill", deleted: true }),
            heard({ receiver_id: 1, name: "Legacy shared key (INGEST_API_KEY)", kind: "legacy" }),
          ],
        },
      },
    });
    await user.click(await screen.findByRole("button", { name: "Open details of job 700" }));
    const dialog = await screen.findByRole("dialog", { name: "Job #700" });
    const section = await within(dialog).findByRole("region", { name: "Heard by" });
    const items = await within(section).findAllByRole("listitem");
    expect(items.map((item) => item.textContent)).toEqual([
      expect.stringMatching(/^Bendigo roof2 copies, first at .+/),
      expect.stringMatching(/^Kyneton hill \(deleted\)At .+/),
      expect.stringMatching(/^Legacy shared key \(INGEST_API_KEY\)At .+/),
    ]);
    expect(server.callsTo("GET /admin/alerts/700/receivers")).toHaveLength(1);
  });

  it("says when no receiver is recorded", async () => {
    const { user } = renderTab({
      "GET /admin/alerts/700/receivers": { body: { success: true, data: [] } },
    });
    await user.click(await screen.findByRole("button", { name: "Open details of job 700" }));
    const dialog = await screen.findByRole("dialog", { name: "Job #700" });
    const section = await within(dialog).findByRole("region", { name: "Heard by" });
    expect(await within(section).findByText(/No receiver is recorded for this alert/)).toBeInTheDocument();
  });

  it("says why the receivers could not be loaded, with Retry", async () => {
    const { user, server } = renderTab({
      "GET /admin/alerts/700/receivers": {
        status: 404,
        body: { success: false, errorType: "not_found", message: "Alert not found" },
      },
    });
    await user.click(await screen.findByRole("button", { name: "Open details of job 700" }));
    const dialog = await screen.findByRole("dialog", { name: "Job #700" });
    const section = await within(dialog).findByRole("region", { name: "Heard by" });
    const alert = await within(section).findByRole("alert");
    expect(alert).toHaveTextContent("Could not load the receivers: Alert not found");
    server.on("GET /admin/alerts/700/receivers", { body: { success: true, data: [heard({})] } });
    await user.click(within(alert).getByRole("button", { name: "Retry" }));
    expect(await within(section).findByText("Bendigo roof")).toBeInTheDocument();
  });
});
