import { screen, waitFor } from "@testing-library/react";
import { fakeLiveChannels } from "../../testing/fake-live-channel";
import { mockApi } from "../../testing/mock-api";
import { renderApp } from "../../testing/render-app";
import { makeSummary, summariesReply } from "../../testing/responding/responding-fixtures";
import { storeSession } from "../../testing/session-fixtures";
import { feedPage, makeAlert, makeGroup } from "./alert-fixtures";

// One test alone in its file: what waits for the first content waits once per page (a module's state),
// and this file's page has shown nothing before it.
it("opens the live channel and asks for answer counts, the feedback badge and the server's environment only once the first cards are on screen", async () => {
  let sendFirstPage: () => void = () => undefined;
  const firstPage = new Promise<void>((resolve) => {
    sendFirstPage = resolve;
  });
  const cardsAtRequest: Record<string, number> = {};
  const noting = (key: string, reply: { body: unknown }) => () => {
    cardsAtRequest[key] ??= document.querySelectorAll("article").length;
    return reply;
  };
  const server = mockApi({
    "GET /alerts/search": async () => {
      await firstPage;
      return feedPage([makeGroup(makeAlert({ id: 7, message: "STRUCTURE FIRE" }))]);
    },
    "GET /alerts/responses": noting("responses", summariesReply([makeSummary(7, { responding: 2 })])),
    "GET /feedback/unread-count": noting("unread", { body: { success: true, data: { unread_count: 0 } } }),
    "GET /health": noting("health", { body: { status: "ok" } }),
  });
  storeSession();
  renderApp("/");

  // The page is up and waits for its first cards: nothing else is asked for meanwhile.
  await screen.findByText("Loading alerts…");
  await new Promise((resolve) => setTimeout(resolve, 300));
  expect(fakeLiveChannels).toHaveLength(0);
  expect(server.callsTo("GET /alerts/responses")).toHaveLength(0);
  expect(server.callsTo("GET /feedback/unread-count")).toHaveLength(0);
  expect(server.callsTo("GET /health")).toHaveLength(0);

  sendFirstPage();
  await screen.findByText("STRUCTURE FIRE");
  await waitFor(() => expect(fakeLiveChannels).toHaveLength(1));
  await waitFor(() => expect(Object.keys(cardsAtRequest).sort()).toEqual(["health", "responses", "unread"]));
  expect(cardsAtRequest).toEqual({ health: 1, responses: 1, unread: 1 });
  // The card's answer toggle shows the counts that came after it.
  expect(await screen.findByRole("button", { name: /^Who is responding: 2 responding/ })).toBeInTheDocument();
});
