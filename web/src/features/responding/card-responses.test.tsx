import { act, waitFor, within } from "@testing-library/react";
import type { UserEvent } from "@testing-library/user-event";
import { liveChannelOpened } from "../../testing/fake-live-channel";
import { type MockRoute, mockApi } from "../../testing/mock-api";
import { renderApp } from "../../testing/render-app";
import { makeJobResponses, makeSummary, summariesReply } from "../../testing/responding/responding-fixtures";
import { storeSession } from "../../testing/session-fixtures";
import { feedPage, makeAlert, makeGroup } from "../alerts/alert-fixtures";
import { answerTimeLabel } from "./labels";

const fire = makeAlert({ id: 4711, type: "emergency", message: "@@ALERT F2404711 HOUSE FIRE" });
const rescue = makeAlert({ id: 4712, type: "emergency", message: "@@ALERT F2404712 RESCUE" });
const meeting = makeAlert({ id: 4713, type: "administrative", message: "QD Station meeting 7pm" });
// An SES job carries no prefix (a standard page) but has a job number: it takes answers too.
const sesJob = makeAlert({
  id: 4714,
  type: "standard",
  message: "S261127080 SES BENDIGO BUILDING DAMAGE 12 HIGH ST BENDIGO",
  job_number: "S261127080",
});
const note = makeAlert({ id: 4715, type: "standard", message: "Test page from the brigade" });

function dashboard(routes: Record<string, MockRoute>) {
  const server = mockApi({
    "GET /health": { body: { status: "ok" } },
    "GET /alerts/search": feedPage([
      makeGroup(fire),
      makeGroup(rescue),
      makeGroup(meeting),
      makeGroup(sesJob),
      makeGroup(note),
    ]),
    ...routes,
  });
  storeSession();
  return { server, ...renderApp("/") };
}

async function cardOf(alertId: number) {
  await waitFor(() => expect(document.querySelector(`[data-alert-id="${alertId}"]`)).not.toBeNull());
  return document.querySelector(`[data-alert-id="${alertId}"]`) as HTMLElement;
}

/** The card's answers toggle in its header, once its counts have loaded. */
function toggleOf(card: HTMLElement) {
  return within(card).findByRole("button", { name: /^Who is responding/ });
}

/** Waits until the card's header says `counts` (its toggle's name begins with them). */
async function expectCounts(card: HTMLElement, counts: string) {
  await waitFor(async () =>
    expect((await toggleOf(card)).getAttribute("aria-label")).toMatch(
      new RegExp(`^Who is responding: ${counts}(\\.|$)`),
    ),
  );
}

/** Opens the card's answer row from its header and returns it. */
async function openAnswers(card: HTMLElement, user: UserEvent) {
  const toggle = await toggleOf(card);
  if (toggle.getAttribute("aria-expanded") !== "true") await user.click(toggle);
  return within(card).findByRole("group", { name: "Who is responding" });
}

describe("who is responding on the cards", { timeout: 15_000 }, () => {
  it("loads the counts of every card whose job takes answers in one request, collapsed into the header", async () => {
    const { server, user } = dashboard({
      "GET /alerts/responses": summariesReply([
        makeSummary(4711, { responding: 4, not_available: 1 }),
        makeSummary(4712),
        makeSummary(4714, { responding: 2 }),
      ]),
    });
    const fireCard = await cardOf(4711);
    const toggle = await toggleOf(fireCard);
    expect(toggle).toHaveAccessibleName("Who is responding: 4 responding, 1 not available");
    expect(toggle).toHaveAttribute("aria-expanded", "false");
    expect(toggle).toHaveTextContent("4");
    // Collapsed: no answer buttons until the member opens the row.
    expect(within(fireCard).queryByRole("button", { name: "Responding" })).not.toBeInTheDocument();
    const row = await openAnswers(fireCard, user);
    expect(toggle).toHaveAttribute("aria-expanded", "true");
    expect(toggle).toHaveAttribute("aria-controls", row.id);
    expect(within(row).getByText("4 responding, 1 not available")).toBeInTheDocument();
    expect(within(row).getByRole("button", { name: "Responding" })).toBeInTheDocument();
    await user.click(toggle);
    expect(within(fireCard).queryByRole("group", { name: "Who is responding" })).not.toBeInTheDocument();

    expect(await toggleOf(await cardOf(4712))).toHaveAccessibleName("Who is responding: No answers yet");
    // The SES S-job (a standard page with a job number) takes answers too.
    expect(await toggleOf(await cardOf(4714))).toHaveAccessibleName("Who is responding: 2 responding");
    // The administrative card and the standard page without a job number take none: not asked about.
    for (const id of [4713, 4715])
      expect(
        within(await cardOf(id)).queryByRole("button", { name: /^Who is responding/ }),
      ).not.toBeInTheDocument();
    const calls = server.callsTo("GET /alerts/responses");
    expect(calls).toHaveLength(1);
    expect(calls[0]!.query.get("ids")!.split(",").sort()).toEqual(["4711", "4712", "4714"]);
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
    const row = await openAnswers(card, user);
    const responding = within(row).getByRole("button", { name: "Responding" });
    expect(responding).toHaveAttribute("aria-pressed", "false");
    await user.click(responding);
    expect(await within(card).findByText("5 responding")).toBeInTheDocument();
    // The header says it too: the member's own answer, filled.
    expect(await toggleOf(card)).toHaveAccessibleName("Who is responding: 5 responding. You: Responding");
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
    expect(await toggleOf(await cardOf(4712))).toHaveAccessibleName("Who is responding: No answers yet");
  });

  it("keeps the counts fresh from the live channel without asking the server again", async () => {
    const { server } = dashboard({
      "GET /alerts/responses": summariesReply([makeSummary(4711), makeSummary(4712)]),
    });
    const card = await cardOf(4711);
    await expectCounts(card, "No answers yet");
    const channel = await liveChannelOpened();
    act(() => channel.connect());
    act(() =>
      channel.serverEmit("alert:responses", {
        job_alert_id: 4711,
        responding: 1,
        not_available: 2,
      }),
    );
    await expectCounts(card, "1 responding, 2 not available");
    await expectCounts(await cardOf(4712), "No answers yet");
    // A malformed event changes nothing.
    act(() => channel.serverEmit("alert:responses", { job_alert_id: "4711", responding: 9 }));
    await expectCounts(card, "1 responding, 2 not available");
    expect(server.callsTo("GET /alerts/responses")).toHaveLength(1);
  });

  it.each([
    ["the live channel is back after a drop", true],
    ["the page is first in its rooms (answers given while it opened)", false],
  ])("asks again for the counts on screen, in one request, when %s", async (_, drop) => {
    let responding = 0;
    const { server } = dashboard({
      "GET /alerts/responses": () =>
        summariesReply([makeSummary(4711, { responding }), makeSummary(4712, { responding })]),
    });
    const card = await cardOf(4711);
    await expectCounts(card, "No answers yet");
    const channel = await liveChannelOpened();
    act(() => channel.connect());
    responding = 2;
    if (drop) {
      act(() => channel.drop());
      act(() => channel.connect());
    }
    // Read again once the server has put the page in its rooms, not at the connect.
    expect(server.callsTo("GET /alerts/responses")).toHaveLength(1);
    act(() => channel.acknowledgeJoin());
    await expectCounts(card, "2 responding");
    await expectCounts(await cardOf(4712), "2 responding");
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
    await expectCounts(card, "2 responding");
    const channel = await liveChannelOpened();
    act(() =>
      channel.serverEmit("alert:responses", {
        job_alert_id: 4700,
        responding: 3,
        not_available: 0,
      }),
    );
    await expectCounts(card, "3 responding");
  });

  it("disables the buttons of a closed job and says 'Closed for responses'", async () => {
    const { user } = dashboard({
      "GET /alerts/responses": summariesReply([
        makeSummary(4711, { open: false, responding: 3 }),
        makeSummary(4712),
      ]),
    });
    const card = await cardOf(4711);
    expect(await toggleOf(card)).toHaveAccessibleName(
      "Who is responding: 3 responding. Closed for responses",
    );
    await openAnswers(card, user);
    expect(within(card).getByText("Closed for responses")).toBeInTheDocument();
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
    await user.click(within(await openAnswers(card, user)).getByRole("button", { name: "Not available" }));
    expect(await within(card).findByRole("alert")).toHaveTextContent("This job has closed for responses");
    expect(within(card).getByText("Closed for responses")).toBeInTheDocument();
    expect(within(card).getByRole("button", { name: "Not available" })).toBeDisabled();
  });
});
