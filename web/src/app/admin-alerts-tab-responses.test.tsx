import { act, render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { publishLiveEvent } from "../api/live-events";
import { feedPage, makeAlert, makeGroup } from "../features/alerts/alert-fixtures";
import { RespondingProvider } from "../features/responding";
import { type MockRoute, mockApi } from "../testing/mock-api";
import {
  makeAdminJobResponses,
  makeSummary,
  summariesReply,
} from "../testing/responding/responding-fixtures";
import { storeSession, testUser } from "../testing/session-fixtures";
import { AlertsTab } from "./admin-console-page";
import { AppProviders, createQueryClient } from "./providers";

const fire = makeAlert({ id: 600, type: "emergency", message: "@@ALERT F250000600 HOUSE FIRE" });
const tree = makeAlert({ id: 601, type: "non_emergency", message: "Hb F250000601 TREE DOWN" });
const answeredAt = new Date(Date.now() - 4 * 60_000).toISOString();
const people = [
  {
    user_id: 31,
    first_name: "Jo",
    last_name: "Smith",
    agency_names: ["Country Fire Authority"],
    status: "responding" as const,
    eta_minutes: 10 as const,
    answered_at: answeredAt,
  },
  {
    user_id: 32,
    first_name: "Kim",
    last_name: "Nguyen",
    agency_names: ["Country Fire Authority", "State Emergency Service"],
    status: "not_available" as const,
    eta_minutes: null,
    answered_at: answeredAt,
  },
];

function renderTab(routes: Record<string, MockRoute>) {
  const admin = { ...testUser, is_admin: true };
  const server = mockApi({
    "GET /alerts/search": feedPage([makeGroup(fire), makeGroup(tree)]),
    "GET /alerts/responses": summariesReply([makeSummary(600, { responding: 1, not_available: 1 })]),
    "GET /alerts/600": { body: { success: true, data: fire } },
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

describe("admin alerts tab: answers per job", { timeout: 15_000 }, () => {
  it("shows an emergency card's counts without answer buttons", async () => {
    const { server } = renderTab({});
    await waitFor(() => expect(screen.getAllByRole("article")).toHaveLength(2));
    const [fireCard, treeCard] = screen.getAllByRole("article");
    expect(await within(fireCard!).findByText("1 responding, 1 not available")).toBeInTheDocument();
    expect(within(fireCard!).queryByRole("button", { name: "Responding" })).not.toBeInTheDocument();
    expect(within(treeCard!).queryByText(/responding|No answers yet/)).not.toBeInTheDocument();
    expect(server.callsTo("GET /alerts/responses")[0]?.query.get("ids")).toBe("600");
  });

  it("lists everyone's answers with their agencies in the job view, kept current live", async () => {
    let answers = people.slice(0, 1);
    const { server, user } = renderTab({
      "GET /admin/alerts/600/responses": () => ({
        body: makeAdminJobResponses(600, {
          responding: 1,
          not_available: answers.length - 1,
          people: answers,
        }),
      }),
    });
    await user.click(await screen.findByRole("button", { name: "Open details of job 600" }));
    const dialog = await screen.findByRole("dialog", { name: "Job #600" });
    const section = await within(dialog).findByRole("region", { name: "Answers" });
    expect(within(section).getByText("1 responding")).toBeInTheDocument();
    expect(within(section).getByText(/^Taking answers until /)).toBeInTheDocument();
    expect(within(section).queryByRole("button", { name: "Responding" })).not.toBeInTheDocument();
    const list = within(section).getByRole("list", { name: "Everyone's answers" });
    expect(within(list).getByText("Jo Smith")).toBeInTheDocument();
    expect(within(list).getByText(/ETA 10 min · .+ · Country Fire Authority$/)).toBeInTheDocument();

    answers = people;
    act(() => publishLiveEvent("alert:responses", { job_alert_id: 600, responding: 1, not_available: 1 }));
    expect(await within(section).findByText("Kim Nguyen")).toBeInTheDocument();
    expect(within(section).getByText(/Country Fire Authority, State Emergency Service$/)).toBeInTheDocument();
    expect(within(section).getByText("1 responding, 1 not available")).toBeInTheDocument();
    expect(server.callsTo("GET /admin/alerts/600/responses")).toHaveLength(2);
  });

  it("says a closed job takes no more answers", async () => {
    const { user } = renderTab({
      "GET /admin/alerts/600/responses": {
        body: makeAdminJobResponses(600, { open: false, responding: 1, people: people.slice(0, 1) }),
      },
    });
    await user.click(await screen.findByRole("button", { name: "Open details of job 600" }));
    const dialog = await screen.findByRole("dialog", { name: "Job #600" });
    const section = await within(dialog).findByRole("region", { name: "Answers" });
    expect(within(section).getByText("Closed for responses")).toBeInTheDocument();
  });
});
