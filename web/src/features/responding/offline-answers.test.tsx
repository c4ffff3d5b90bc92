import { act, screen, waitFor, within } from "@testing-library/react";
import type { UserEvent } from "@testing-library/user-event";
import { STORAGE_PREFIX } from "@turnout/domain";
import { type MockRoute, mockApi } from "../../testing/mock-api";
import { renderApp } from "../../testing/render-app";
import { makeJobResponses, summariesReply } from "../../testing/responding/responding-fixtures";
import { storeSession, testUser } from "../../testing/session-fixtures";
import { feedPage, makeAlert, makeGroup } from "../alerts/alert-fixtures";
import { OFFLINE_COUNTS_TEXT, PENDING_TEXT } from "./labels";
import type { Answer } from "./responding-api";

const fire = makeAlert({ id: 4711, type: "emergency", message: "@@ALERT F2404711 HOUSE FIRE" });
const pendingKey = `${STORAGE_PREFIX}pending_responses_${testUser.id}`;

function setOnline(online: boolean) {
  vi.spyOn(navigator, "onLine", "get").mockReturnValue(online);
  act(() => {
    window.dispatchEvent(new Event(online ? "online" : "offline"));
  });
}

/** The server's side of PUT: records each answer and replies as the contract says. */
function answering(reply: (body: Answer) => { status?: number; body: unknown } = defaultReply) {
  const received: Answer[] = [];
  const route: MockRoute = (request) => {
    received.push(request.body as Answer);
    return reply(request.body as Answer);
  };
  return { received, route };
}

/** The job as the fake server holds it: the member's answer is the only one. */
let job = makeJobResponses(4711);

function defaultReply(body: Answer) {
  const mine = { status: body.status, eta_minutes: body.eta_minutes ?? null, answered_at: body.answered_at! };
  job = makeJobResponses(4711, {
    responding: body.status === "responding" ? 1 : 0,
    not_available: body.status === "not_available" ? 1 : 0,
    mine,
  });
  return { body: job };
}

function dashboard(routes: Record<string, MockRoute>) {
  job = makeJobResponses(4711);
  const server = mockApi({
    "GET /health": { body: { status: "ok" } },
    "GET /alerts/search": feedPage([makeGroup(fire)]),
    "GET /alerts/responses": () => {
      const { people: _people, ...summary } = job;
      return summariesReply([summary]);
    },
    ...routes,
  });
  storeSession();
  return { server, ...renderApp("/") };
}

/** The job's card with its answer row opened from the header (cards start with it closed). */
async function fireCard(user: UserEvent) {
  await waitFor(() => expect(document.querySelector('[data-alert-id="4711"]')).not.toBeNull());
  const card = document.querySelector('[data-alert-id="4711"]') as HTMLElement;
  const toggle = await within(card).findByRole("button", { name: /^Who is responding/ });
  if (toggle.getAttribute("aria-expanded") !== "true") await user.click(toggle);
  await within(card).findByRole("button", { name: "Responding" });
  return card;
}

describe("answers given without a network", { timeout: 15_000 }, () => {
  // The query library follows the browser's online/offline events: a test that fails offline must
  // not leave the next one offline.
  afterEach(() => {
    window.dispatchEvent(new Event("online"));
  });

  it("keeps an offline answer (across a reload), replaces it with a newer one, and sends that with its time when back online", async () => {
    const put = answering();
    const { unmount, user } = dashboard({ "PUT /alerts/4711/response": put.route });
    let card = await fireCard(user);
    setOnline(false);

    await user.click(within(card).getByRole("button", { name: "Responding" }));
    expect(await within(card).findByText(PENDING_TEXT)).toBeInTheDocument();
    expect(within(card).getByRole("button", { name: "Responding" })).toHaveAttribute("aria-pressed", "true");
    await user.click(within(card).getByRole("button", { name: "Not available" }));
    expect(within(card).getByRole("button", { name: "Not available" })).toHaveAttribute(
      "aria-pressed",
      "true",
    );
    const kept = JSON.parse(localStorage.getItem(pendingKey) ?? "[]") as Array<{
      status: string;
      answered_at: string;
    }>;
    expect(kept.map((answer) => answer.status)).toEqual(["not_available"]);
    expect(put.received).toHaveLength(0);

    // A reload while still offline (the feed from its offline copy, no counts): still there, still pending.
    unmount();
    const reloaded = renderApp("/");
    card = await fireCard(reloaded.user);
    expect(within(card).getByText(OFFLINE_COUNTS_TEXT)).toBeInTheDocument();
    expect(await within(card).findByText(PENDING_TEXT)).toBeInTheDocument();
    expect(within(card).getByRole("button", { name: "Not available" })).toHaveAttribute(
      "aria-pressed",
      "true",
    );

    setOnline(true);
    await waitFor(() => expect(put.received).toHaveLength(1));
    expect(put.received[0]).toEqual({
      status: "not_available",
      eta_minutes: null,
      answered_at: kept[0]!.answered_at,
    });
    // Back online the feed reads the server again: its card is a new element.
    await waitFor(async () =>
      expect(within(await fireCard(reloaded.user)).getByText("1 not available")).toBeInTheDocument(),
    );
    card = await fireCard(reloaded.user);
    expect(within(card).queryByText(PENDING_TEXT)).not.toBeInTheDocument();
    expect(within(card).getByRole("button", { name: "Not available" })).toHaveAttribute(
      "aria-pressed",
      "true",
    );
    expect(localStorage.getItem(pendingKey)).toBeNull();
    reloaded.unmount();
  });

  it("keeps the answer when the request gets no answer, and sends it when the network is back", async () => {
    let reachable = false;
    const put = answering();
    const { user } = dashboard({
      "PUT /alerts/4711/response": (request) => {
        if (!reachable) throw new TypeError("Failed to fetch");
        return (put.route as (r: typeof request) => ReturnType<typeof defaultReply>)(request);
      },
    });
    const card = await fireCard(user);
    await user.click(within(card).getByRole("button", { name: "Responding" }));
    expect(await within(card).findByText(PENDING_TEXT)).toBeInTheDocument();
    reachable = true;
    setOnline(false);
    setOnline(true);
    await waitFor(() => expect(put.received).toHaveLength(1));
    expect(put.received[0]!.status).toBe("responding");
    expect(put.received[0]!.answered_at).toEqual(expect.any(String));
    await waitFor(() => expect(within(card).queryByText(PENDING_TEXT)).not.toBeInTheDocument());
  });

  it("shows an answer the server refuses because the job closed meanwhile, and does not send it again", async () => {
    const put = answering(() => {
      // The job closed on the server: what it reports afterwards says so too.
      job = makeJobResponses(4711, { open: false, closes_at: new Date(Date.now() - 1000).toISOString() });
      return {
        status: 409,
        body: { success: false, message: "This job has closed for responses", errorType: "conflict" },
      };
    });
    const { user } = dashboard({ "PUT /alerts/4711/response": put.route });
    const card = await fireCard(user);
    setOnline(false);
    await user.click(within(card).getByRole("button", { name: "Responding" }));
    setOnline(true);
    const refusal = await within(card).findByRole("alert");
    expect(refusal).toHaveTextContent(
      /^Your answer \(Responding · .+\) was not sent: This job has closed for responses$/,
    );
    expect(within(card).queryByText(PENDING_TEXT)).not.toBeInTheDocument();
    // The refusal comes from the pending store, the closed job from the query cache, which notifies on
    // its own schedule: a render later on a slow machine.
    expect(await within(card).findByText("Closed for responses")).toBeInTheDocument();
    setOnline(false);
    setOnline(true);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(put.received).toHaveLength(1);
    // Coming back online reads the summaries again, and the server's say the same.
    expect(within(card).getByText("Closed for responses")).toBeInTheDocument();
  });

  it("drops kept answers when the member signs out", async () => {
    const { user } = dashboard({});
    const card = await fireCard(user);
    setOnline(false);
    await user.click(within(card).getByRole("button", { name: "Responding" }));
    expect(localStorage.getItem(pendingKey)).not.toBeNull();
    const { storage } = await import("../../api/storage");
    storage.clearSession();
    expect(localStorage.getItem(pendingKey)).toBeNull();
    expect(screen.getAllByText(PENDING_TEXT)).toHaveLength(1);
  });
});
