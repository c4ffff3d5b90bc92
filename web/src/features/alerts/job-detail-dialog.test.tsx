import { act, screen, waitFor, within } from "@testing-library/react";
import { buildShareText, CLIPBOARD_NOTICE_MS, formatDateTime, MESSAGES } from "@turnout/domain";
import { onTestFinished } from "vitest";
import { type MockRoute, mockApi } from "../../testing/mock-api";
import { currentLocation, renderApp } from "../../testing/render-app";
import { storeSession } from "../../testing/session-fixtures";
import { feedPage, makeAlert, makeGroup } from "./alert-fixtures";

// Replayed from a receiver's spool: paged three hours before the server received it.
const PAGED = new Date(Date.now() - 3 * 3_600_000).toISOString();
const RECEIVED = new Date(Date.now() - 60_000).toISOString();
const mappable = makeAlert({
  id: 4711,
  created_at: PAGED,
  sent_at: PAGED,
  received_at: RECEIVED,
  type: "emergency",
  message: "@@ALERT F2401234 STRUCTURE FIRE 12 MAIN ST GEELONG",
  area: "Geelong",
  has_mappable_address: true,
  primary_address: "12 Main St, Geelong VIC",
  directions_url: "https://www.google.com/maps/dir/?api=1&destination=12%20Main%20St%2C%20Geelong%20VIC",
});

function openJob(route: MockRoute, path = "/?job=4711") {
  const server = mockApi({
    "GET /health": { body: { status: "ok" } },
    "GET /alerts/search": feedPage([]),
    "GET /alerts/4711": route,
  });
  storeSession();
  return { server, ...renderApp(path) };
}

describe("job detail popup", { timeout: 15_000 }, () => {
  it("shows 'Job #{id}', its chips, text, paged time and a directions link in a new tab", async () => {
    openJob({ body: { success: true, data: mappable } });
    const dialog = await screen.findByRole("dialog", { name: "Job #4711" });
    expect(await within(dialog).findByText("ALERT F2401234 STRUCTURE FIRE 12 MAIN ST GEELONG")).toBeVisible();
    expect(within(dialog).getByText("EMERGENCY")).toBeInTheDocument();
    expect(within(dialog).getByText("Country Fire Authority")).toBeInTheDocument();
    expect(within(dialog).getByText("Geelong")).toBeInTheDocument();
    expect(within(dialog).getByText(formatDateTime(PAGED))).toBeInTheDocument();
    // A late page also says when it was received.
    expect(within(dialog).getByText(formatDateTime(RECEIVED))).toBeInTheDocument();
    const directions = within(dialog).getByRole("link", { name: "Directions" });
    expect(directions).toHaveAttribute("href", mappable.directions_url);
    expect(directions).toHaveAttribute("target", "_blank");
    expect(directions).toHaveAttribute("rel", "noopener noreferrer");
  });

  it("opens directions in the same window on iOS Safari", async () => {
    vi.spyOn(navigator, "userAgent", "get").mockReturnValue(
      "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1",
    );
    openJob({ body: { success: true, data: mappable } });
    const dialog = await screen.findByRole("dialog", { name: "Job #4711" });
    const directions = await within(dialog).findByRole("link", { name: "Directions" });
    expect(directions).not.toHaveAttribute("target");
  });

  it("has no directions button when the address cannot be mapped", async () => {
    openJob({ body: { success: true, data: { ...mappable, has_mappable_address: false } } });
    const dialog = await screen.findByRole("dialog", { name: "Job #4711" });
    await within(dialog).findByRole("button", { name: "Share" });
    expect(within(dialog).queryByRole("link", { name: "Directions" })).not.toBeInTheDocument();
  });

  it.each([
    [
      "403 with the server's text",
      { status: 403, body: { success: false, message: "Not your agency." } },
      "Not your agency.",
    ],
    ["403 without text", { status: 403, body: { success: false } }, MESSAGES.JOB_FORBIDDEN],
    ["404", { status: 404, body: { success: false, message: "Gone" } }, MESSAGES.JOB_NOT_FOUND],
    [
      "400",
      { status: 400, body: { success: false, message: "The alert id must be digits" } },
      MESSAGES.JOB_LOAD_FAILED,
    ],
  ])("says why it cannot load (%s) under 'Unable to Load Message'", async (_case, reply, text) => {
    openJob(reply);
    const dialog = await screen.findByRole("dialog", { name: MESSAGES.JOB_LOAD_TITLE });
    expect(within(dialog).getByText(text)).toBeInTheDocument();
    expect(screen.queryByRole("alertdialog", { name: "Not Authorized" })).not.toBeInTheDocument();
  });

  it("says 'Failed to load message details.' when the server errs", async () => {
    openJob({ status: 500, body: { success: false, message: "Boom" } });
    const dialog = await screen.findByRole("dialog", { name: MESSAGES.JOB_LOAD_TITLE });
    expect(within(dialog).getByText(MESSAGES.JOB_LOAD_FAILED)).toBeInTheDocument();
  });

  it("copies the share text when there is no Web Share API and says so for 3 seconds", async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true, toFake: ["setTimeout", "clearTimeout"] });
    expect(navigator.share).toBeUndefined();
    // user-event puts a clipboard stub in place that the test can read back.
    const { user } = openJob({ body: { success: true, data: mappable } }, "/?job=4711");
    const dialog = await screen.findByRole("dialog", { name: "Job #4711" });
    await user.click(await within(dialog).findByRole("button", { name: "Share" }));
    const shared = buildShareText({ ...mappable, sent_at: PAGED }).text;
    expect(await navigator.clipboard.readText()).toBe(shared);
    expect(shared.split("\n").slice(0, 2)).toEqual([
      "Emergency Alert - Country Fire Authority - Geelong",
      formatDateTime(PAGED),
    ]);
    expect(await screen.findByText(MESSAGES.CLIPBOARD_COPIED)).toBeInTheDocument();
    act(() => vi.advanceTimersByTime(CLIPBOARD_NOTICE_MS - 100));
    expect(screen.getByText(MESSAGES.CLIPBOARD_COPIED)).toBeInTheDocument();
    act(() => vi.advanceTimersByTime(200));
    await waitFor(() => expect(screen.queryByText(MESSAGES.CLIPBOARD_COPIED)).not.toBeInTheDocument());
  });

  it("uses the Web Share API where there is one", async () => {
    const share = vi.fn().mockResolvedValue(undefined);
    Object.defineProperty(navigator, "share", { configurable: true, value: share });
    onTestFinished(() => {
      Reflect.deleteProperty(navigator, "share");
    });
    const { user } = openJob({ body: { success: true, data: mappable } });
    const dialog = await screen.findByRole("dialog", { name: "Job #4711" });
    await user.click(await within(dialog).findByRole("button", { name: "Share" }));
    expect(share).toHaveBeenCalledWith(buildShareText({ ...mappable, sent_at: PAGED }));
    expect(screen.queryByText(MESSAGES.CLIPBOARD_COPIED)).not.toBeInTheDocument();
  });

  it("removes job from the address when closed", async () => {
    const { user } = openJob({ body: { success: true, data: mappable } });
    const dialog = await screen.findByRole("dialog", { name: "Job #4711" });
    await user.click(within(dialog).getAllByRole("button", { name: "Close" })[0]!);
    await waitFor(() => expect(screen.queryByRole("dialog")).not.toBeInTheDocument());
    expect(currentLocation()).toEqual({ pathname: "/", search: "" });
  });

  it("opens from the short path /j/{id}", async () => {
    openJob({ body: { success: true, data: mappable } }, "/j/4711");
    expect(await screen.findByRole("dialog", { name: "Job #4711" })).toBeInTheDocument();
  });

  it("opens from a card and goes back to the feed when closed", async () => {
    const server = mockApi({
      "GET /health": { body: { status: "ok" } },
      "GET /alerts/search": feedPage([makeGroup(mappable)]),
      "GET /alerts/4711": { body: { success: true, data: mappable } },
    });
    storeSession();
    const { user } = renderApp("/");
    const card = await screen.findByRole("button", { name: "Open details of job 4711" });
    // Counted from the click: the previous test's page may still be settling when this one starts, and
    // its requests reach the same global fetch.
    const before = server.callsTo("GET /alerts/4711").length;
    await user.click(card);
    const dialog = await screen.findByRole("dialog", { name: "Job #4711" });
    expect(currentLocation().search).toBe("?job=4711");
    await user.click(within(dialog).getAllByRole("button", { name: "Close" })[0]!);
    await waitFor(() => expect(currentLocation().search).toBe(""));
    expect(server.callsTo("GET /alerts/4711").length - before).toBe(1);
  });
});
