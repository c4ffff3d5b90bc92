import { act, waitFor, within } from "@testing-library/react";
import { latestLiveChannel } from "../../testing/fake-live-channel";
import { type MockRoute, mockApi } from "../../testing/mock-api";
import { renderApp } from "../../testing/render-app";
import { storeSession } from "../../testing/session-fixtures";
import { feedPage, makeAlert, makeGroup } from "../alerts/alert-fixtures";
import { answerTimeLabel } from "./labels";
import { makeJobResponses, makeSummary, summariesReply } from "./testing/responding-fixtures";

const fire = makeAlert({ id: 4711, type: "emergency", message: "@@ALERT F2404711 HOUSE FIRE" });
const rescue = makeAlert({ id: 4712, type: "emergency", message: "@@ALERT F2404712 RESCUE" });
const meeting = makeAlert({ id: 4713, type: "administrative", message: "QD Station meeting 7pm" });

function dashboard(routes: Record<string, MockRoute>) {
  const server = mockApi({
    "GET /health": { body: { status: "ok" } },
    "GET /alerts/search": feedPage([makeGroup(fire), makeGroup(rescue), makeGroup(meeting)]),
    ...routes,
  });
  storeSession();
  return { server, ...renderApp("/") };
}

async function cardOf(alertId: number) {
  await waitFor(() => expect(document.querySelector(`[data-alert-id="${alertId}"]`)).not.toBeNull());
  return document.querySelector(`[data-alert-id="${alertId}"]`) as HTMLElement;
}

describe("who is responding on the cards", { timeout: 15_000 }, () => {
  it("loads the counts of every emergency card on screen in one request and shows them", async () => {
    const { server } = dashboard({
      "GET /alerts/responses": summariesReply([
        makeSummary(4711, { responding: 4, not_available: 1 }),
        makeSummary(4712),
      ]),
    });
    const fireCard = await cardOf(4711);
    expect(await within(fireCard).findByText("4 responding, 1 not available")).toBeInTheDocument();
    expect(within(await cardOf(4712)).getByText("No answers yet")).toBeInTheDocument();
    // The administrative card takes no answers: it is neither asked about nor given buttons.
    const meetingCard = await cardOf(4713);
    expect(within(meetingCard).queryByRole("button", { name: "Responding" })).not.toBeInTheDocument();
    const calls = server.callsTo("GET /alerts/responses");
    expect(calls).toHaveLength(1);
    expect(calls[0]!.query.get("ids")!.split(",").sort()).toEqual(["4711", "4712"]);
  });

  it("answers 'Responding' with one tap and shows the answer highlighted with its time", async () => {
    const answeredAt = new Date(Date.now() - 30_000).toISOString();
    const { server, user } = dashboard({
      "GET /alerts/responses": summariesReply([makeSummary(4711, { responding: 4 }), makeSummary(4712)]),
      "PUT /alerts/4711/response": {
        body: makeJobResponses(4711, {
          responding: 5,
          mine: { status: "responding", eta_minutes: null, answered_at: answeredAt },
        }),
      },
    });
    const card = await cardOf(4711);
    const responding = await within(card).findByRole("button", { name: "Responding" });
    expect(responding).toHaveAttribute("aria-pressed", "false");
    await user.click(responding);
    expect(await within(card).findByText("5 responding")).toBeInTheDocument();
    expect(within(card).getByRole("button", { name: "Responding" })).toHaveAttribute("aria-pressed", "true");
    expect(within(card).getByRole("button", { name: "Not available" })).toHaveAttribute(
      "aria-pressed",
      "false",
    );
    expect(within(card).getByText(`You: Responding · ${answerTimeLabel(answeredAt)}`)).toBeInTheDocument();
    expect(server.callsTo("PUT /alerts/4711/response")[0]!.body).toEqual({
      status: "responding",
      eta_minutes: null,
    });
    // The other card is untouched.
    expect(within(await cardOf(4712)).getByText("No answers yet")).toBeInTheDocument();
  });

  it("keeps the counts fresh from the live channel without asking the server again", async () => {
    const { server } = dashboard({
      "GET /alerts/responses": summariesReply([makeSummary(4711), makeSummary(4712)]),
    });
    const card = await cardOf(4711);
    await within(card).findByText("No answers yet");
    act(() => latestLiveChannel().connect());
    act(() =>
      latestLiveChannel().serverEmit("alert:responses", {
        job_alert_id: 4711,
        responding: 1,
        not_available: 2,
      }),
    );
    expect(await within(card).findByText("1 responding, 2 not available")).toBeInTheDocument();
    expect(within(await cardOf(4712)).getByText("No answers yet")).toBeInTheDocument();
    // A malformed event changes nothing.
    act(() => latestLiveChannel().serverEmit("alert:responses", { job_alert_id: "4711", responding: 9 }));
    expect(within(card).getByText("1 responding, 2 not available")).toBeInTheDocument();
    expect(server.callsTo("GET /alerts/responses")).toHaveLength(1);
  });

  it("asks again for the counts on screen, in one request, when the live channel is back after a drop", async () => {
    let responding = 0;
    const { server } = dashboard({
      "GET /alerts/responses": () =>
        summariesReply([makeSummary(4711, { responding }), makeSummary(4712, { responding })]),
    });
    const card = await cardOf(4711);
    await within(card).findByText("No answers yet");
    act(() => latestLiveChannel().connect());
    responding = 2;
    act(() => latestLiveChannel().drop());
    act(() => latestLiveChannel().connect());
    expect(await within(card).findByText("2 responding")).toBeInTheDocument();
    expect(within(await cardOf(4712)).getByText("2 responding")).toBeInTheDocument();
    expect(server.callsTo("GET /alerts/responses")).toHaveLength(2);
  });

  it("shows a job answered on a later alert of the job under the card's alert (the job's first alert)", async () => {
    // The card shows the job's emergency message; the server resolves it to the job's first alert.
    dashboard({
      "GET /alerts/responses": summariesReply([
        makeSummary(4711, { job_alert_id: 4700, responding: 2 }),
        makeSummary(4712),
      ]),
    });
    const card = await cardOf(4711);
    await within(card).findByText("2 responding");
    act(() =>
      latestLiveChannel().serverEmit("alert:responses", {
        job_alert_id: 4700,
        responding: 3,
        not_available: 0,
      }),
    );
    expect(await within(card).findByText("3 responding")).toBeInTheDocument();
  });

  it("disables the buttons of a closed job and says 'Closed for responses'", async () => {
    dashboard({
      "GET /alerts/responses": summariesReply([
        makeSummary(4711, { open: false, responding: 3 }),
        makeSummary(4712),
      ]),
    });
    const card = await cardOf(4711);
    expect(await within(card).findByText("Closed for responses")).toBeInTheDocument();
    expect(within(card).getByRole("button", { name: "Responding" })).toBeDisabled();
    expect(within(card).getByRole("button", { name: "Not available" })).toBeDisabled();
  });

  it("shows the server's refusal when the job closed in the meantime, and turns the buttons off", async () => {
    const { user } = dashboard({
      "GET /alerts/responses": summariesReply([makeSummary(4711), makeSummary(4712)]),
      "PUT /alerts/4711/response": {
        status: 409,
        body: { success: false, message: "This job has closed for responses", errorType: "conflict" },
      },
    });
    const card = await cardOf(4711);
    await user.click(await within(card).findByRole("button", { name: "Not available" }));
    expect(await within(card).findByRole("alert")).toHaveTextContent("This job has closed for responses");
    expect(within(card).getByText("Closed for responses")).toBeInTheDocument();
    expect(within(card).getByRole("button", { name: "Not available" })).toBeDisabled();
  });
});
