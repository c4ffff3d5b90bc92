import { act, screen, waitFor, within } from "@testing-library/react";
import { latestLiveChannel, liveChannelOpened } from "../../testing/fake-live-channel";
import { type MockRoute, mockApi } from "../../testing/mock-api";
import { renderApp } from "../../testing/render-app";
import { makeJobResponses } from "../../testing/responding/responding-fixtures";
import { storeSession } from "../../testing/session-fixtures";
import { feedPage, makeAlert } from "../alerts/alert-fixtures";
import { answerTimeLabel } from "./labels";
import type { Respondent } from "./responding-api";

const fire = makeAlert({ id: 4711, type: "emergency", message: "@@ALERT F2404711 HOUSE FIRE" });
const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();
const alex = {
  user_id: 21,
  first_name: "Alex",
  last_name: "Brown",
  status: "responding" as const,
  eta_minutes: 5 as const,
  answered_at: minutesAgo(3),
};
const robin = {
  user_id: 22,
  first_name: "Robin",
  last_name: "Lee",
  status: "not_available" as const,
  eta_minutes: null,
  answered_at: minutesAgo(2),
};

function openPopup(routes: Record<string, MockRoute>, alert = fire) {
  const server = mockApi({
    "GET /health": { body: { status: "ok" } },
    "GET /alerts/search": feedPage([]),
    [`GET /alerts/${alert.id}`]: { body: { success: true, data: alert } },
    ...routes,
  });
  storeSession();
  return { server, ...renderApp(`/?job=${alert.id}`) };
}

async function answersSection() {
  const dialog = await screen.findByRole("dialog", { name: "Job #4711" });
  return within(dialog).findByRole("region", { name: "Who is responding" });
}

describe("who is responding in the job popup", { timeout: 15_000 }, () => {
  it("shows the counts and each member's answer with ETA and time, responding first", async () => {
    openPopup({
      "GET /alerts/4711/responses": {
        body: makeJobResponses(4711, { responding: 1, not_available: 1, people: [alex, robin] }),
      },
    });
    const section = await answersSection();
    expect(within(section).getByText("1 responding, 1 not available")).toBeInTheDocument();
    const rows = within(within(section).getByRole("list", { name: "Members' answers" })).getAllByRole(
      "listitem",
    );
    expect(rows.map((row) => row.textContent)).toEqual([
      `Alex BrownETA 5 min · ${answerTimeLabel(alex.answered_at)}Responding`,
      `Robin Lee${answerTimeLabel(robin.answered_at)}Not available`,
    ]);
  });

  it("answers 'Responding' with the chosen ETA, and changing the ETA sends the answer again", async () => {
    let answers = 0;
    const { server, user } = openPopup({
      "GET /alerts/4711/responses": { body: makeJobResponses(4711) },
      "PUT /alerts/4711/response": (request) => {
        answers += 1;
        const body = request.body as { status: "responding"; eta_minutes: 5 | 10 | 15 | null };
        const mine = { status: body.status, eta_minutes: body.eta_minutes, answered_at: minutesAgo(0) };
        return {
          body: makeJobResponses(4711, {
            responding: 1,
            mine,
            people: [{ user_id: 7, first_name: "Sam", last_name: "Taylor", ...mine }],
          }),
        };
      },
    });
    const section = await answersSection();
    await user.click(within(section).getByRole("button", { name: "10 min" }));
    expect(answers).toBe(0);
    await user.click(within(section).getByRole("button", { name: "Responding" }));
    expect(await within(section).findByText("1 responding")).toBeInTheDocument();
    expect(server.callsTo("PUT /alerts/4711/response")[0]!.body).toEqual({
      status: "responding",
      eta_minutes: 10,
    });
    expect(within(section).getByRole("button", { name: "Responding" })).toHaveAttribute(
      "aria-pressed",
      "true",
    );
    expect(within(section).getByText(/^You: Responding · 10 min · /)).toBeInTheDocument();
    await user.click(within(section).getByRole("button", { name: "15+ min" }));
    await waitFor(() => expect(answers).toBe(2));
    expect(server.callsTo("PUT /alerts/4711/response")[1]!.body).toEqual({
      status: "responding",
      eta_minutes: 15,
    });
    expect(await within(section).findByText(/^You: Responding · 15\+ min · /)).toBeInTheDocument();
  });

  it("sends no ETA with 'Not available'", async () => {
    const { server, user } = openPopup({
      "GET /alerts/4711/responses": { body: makeJobResponses(4711) },
      "PUT /alerts/4711/response": {
        body: makeJobResponses(4711, {
          not_available: 1,
          mine: { status: "not_available", eta_minutes: null, answered_at: minutesAgo(0) },
        }),
      },
    });
    const section = await answersSection();
    await user.click(within(section).getByRole("button", { name: "5 min" }));
    await user.click(within(section).getByRole("button", { name: "Not available" }));
    expect(await within(section).findByText("1 not available")).toBeInTheDocument();
    expect(server.callsTo("PUT /alerts/4711/response")[0]!.body).toEqual({
      status: "not_available",
      eta_minutes: null,
    });
  });

  it("asks again for the names when the live channel says the answers changed, while it is open", async () => {
    let people: Respondent[] = [alex];
    const { server } = openPopup({
      "GET /alerts/4711/responses": () => ({
        body: makeJobResponses(4711, {
          responding: 1,
          not_available: people.length - 1,
          people,
        }),
      }),
    });
    const section = await answersSection();
    expect(within(section).getByText("Alex Brown")).toBeInTheDocument();
    const before = server.callsTo("GET /alerts/4711/responses").length;
    people = [alex, robin];
    const channel = await liveChannelOpened();
    act(() =>
      channel.serverEmit("alert:responses", {
        job_alert_id: 4711,
        responding: 1,
        not_available: 1,
      }),
    );
    expect(await within(section).findByText("Robin Lee")).toBeInTheDocument();
    expect(within(section).getByText("1 responding, 1 not available")).toBeInTheDocument();
    expect(server.callsTo("GET /alerts/4711/responses").length - before).toBe(1);
    // Another job's answers do not touch this one.
    act(() =>
      latestLiveChannel().serverEmit("alert:responses", {
        job_alert_id: 999,
        responding: 7,
        not_available: 0,
      }),
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(server.callsTo("GET /alerts/4711/responses").length - before).toBe(1);
  });

  it("turns the buttons and the ETA off on a closed job and says 'Closed for responses'", async () => {
    openPopup({
      "GET /alerts/4711/responses": {
        body: makeJobResponses(4711, { open: false, responding: 2, people: [alex] }),
      },
    });
    const section = await answersSection();
    expect(within(section).getByText("Closed for responses")).toBeInTheDocument();
    expect(within(section).getByRole("button", { name: "Responding" })).toBeDisabled();
    expect(within(section).getByRole("button", { name: "Not available" })).toBeDisabled();
    expect(within(section).queryByRole("button", { name: "5 min" })).not.toBeInTheDocument();
    expect(within(section).getByText("Alex Brown")).toBeInTheDocument();
  });

  it("withdraws the member's answer", async () => {
    const { server, user } = openPopup({
      "GET /alerts/4711/responses": {
        body: makeJobResponses(4711, {
          responding: 1,
          mine: { status: "responding", eta_minutes: null, answered_at: minutesAgo(1) },
        }),
      },
      "DELETE /alerts/4711/response": { body: makeJobResponses(4711) },
    });
    const section = await answersSection();
    await user.click(within(section).getByRole("button", { name: "Withdraw my answer" }));
    expect(await within(section).findByText("No answers yet")).toBeInTheDocument();
    expect(within(section).getByRole("button", { name: "Responding" })).toHaveAttribute(
      "aria-pressed",
      "false",
    );
    expect(server.callsTo("DELETE /alerts/4711/response")).toHaveLength(1);
  });

  it.each([
    [
      "a standard page without a job number",
      { type: "standard", message: "Test page from the brigade" },
      "This page has no job number, so it takes no answers.",
    ],
    [
      "an administrative page",
      { type: "administrative", message: "QD F2404711 STATION MEETING", job_number: "F2404711" },
      "Administrative pages take no answers.",
    ],
    [
      "a machine page",
      { type: "administrative", is_machine: true, message: "@@)&)E51TIMEUPDATE" },
      "Machine and test pages take no answers.",
    ],
  ])("says why %s takes no answers, without asking the server", async (_name, overrides, reason) => {
    const page = makeAlert({ id: 4711, job_number: null, ...overrides });
    const { server } = openPopup({}, page);
    const dialog = await screen.findByRole("dialog", { name: "Job #4711" });
    const section = await within(dialog).findByRole("region", { name: "Who is responding" });
    expect(section).toHaveTextContent(reason);
    expect(within(dialog).queryByRole("button", { name: "Responding" })).not.toBeInTheDocument();
    expect(server.callsTo("GET /alerts/4711/responses")).toEqual([]);
  });

  it("takes answers for an SES job with a job number but no prefix", async () => {
    const sesJob = makeAlert({
      id: 4711,
      type: "standard",
      message: "S261127080 SES BENDIGO BUILDING DAMAGE 12 HIGH ST BENDIGO",
      job_number: "S261127080",
    });
    openPopup({ "GET /alerts/4711/responses": { body: makeJobResponses(4711) } }, sesJob);
    const section = await answersSection();
    expect(within(section).getByRole("button", { name: "Responding" })).toBeEnabled();
  });
});
