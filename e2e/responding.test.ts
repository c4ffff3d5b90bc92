import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registerActiveAccount } from "./support/accounts.js";
import {
  agencyIds,
  apiJson,
  ingest,
  mapCapcode,
  openSignedIn,
  type SignedInSession,
  signInByApi,
} from "./support/alerts.js";
import { type BrowserSession, openBrowser } from "./support/browser.js";
import { chromiumPath } from "./support/chromium.js";
import { type RunningServer, startServer } from "./support/server.js";

const INGEST_KEY = "e2e-ingest-key-for-responding";
const ADMIN_PHONE = "+61400000951";
const CFA_CAPCODE = "1235001";
const SES_CAPCODE = "1235002";
const JOB_TEXT = "@@ALERT F251123001 BRAV2 STRUC1 HOUSE FIRE 14 EXAMPLE RD BENDIGO";
const CARD_TEXT = "HOUSE FIRE 14 EXAMPLE RD";

const SES_JOB_TEXT = "S261127080 SES BENDIGO BUILDING DAMAGE 12 HIGH ST BENDIGO";

/** The card showing `text`. */
const cardOf = (page: Page, text: string) => page.getByRole("article").filter({ hasText: text });

/** The answer row of the card showing `text`, opened from the card's header toggle when closed. */
async function openAnswers(page: Page, text = CARD_TEXT) {
  const card = cardOf(page, text);
  const toggle = card.getByRole("button", { name: /^Who is responding/ });
  await toggle.waitFor({ timeout: 20_000 });
  if ((await toggle.getAttribute("aria-expanded")) !== "true") await toggle.click();
  return card.getByRole("group", { name: "Who is responding" });
}

/** The answer row of the job's card (opened by openAnswers). */
const answers = (page: Page) => cardOf(page, CARD_TEXT).getByRole("group", { name: "Who is responding" });

describe.skipIf(!chromiumPath)("who is responding, in two members' browsers", () => {
  let server: RunningServer;
  let alex: SignedInSession;
  let blair: SignedInSession;
  let casey: SignedInSession;
  let jobId: number;
  const browsers: BrowserSession[] = [];

  beforeAll(async () => {
    server = await startServer({ INGEST_API_KEY: INGEST_KEY, ADMIN_PHONES: ADMIN_PHONE });
    const admin = await signInByApi(server, ADMIN_PHONE, "e2e-responding-admin");
    const agencies = await agencyIds(server);
    await mapCapcode(server, admin.token, CFA_CAPCODE, agencies.CFA!, "Bendigo");
    await mapCapcode(server, admin.token, SES_CAPCODE, agencies.SES!, "Geelong");
    const a = await registerActiveAccount(server, "0412 555 961", { firstName: "Alex", lastName: "Hart" });
    const b = await registerActiveAccount(server, "0412 555 962", { firstName: "Blair", lastName: "Moss" });
    const c = await registerActiveAccount(server, "0412 555 963", {
      firstName: "Casey",
      lastName: "Reed",
      agency: "SES",
    });
    alex = await signInByApi(server, a.phone, "e2e-responding-alex");
    blair = await signInByApi(server, b.phone, "e2e-responding-blair");
    casey = await signInByApi(server, c.phone, "e2e-responding-casey");
    [jobId] = (await ingest(server, INGEST_KEY, [{ capcode: CFA_CAPCODE, message: JOB_TEXT }])) as [number];
    // Something the SES member does see, so their feed is known to have loaded.
    await ingest(server, INGEST_KEY, [{ capcode: SES_CAPCODE, message: "Hb SES TREE DOWN 4 BAY ST" }]);
  });

  afterAll(async () => {
    for (const b of browsers) await b.close();
    await server?.stop();
  });

  async function browserFor(session: SignedInSession) {
    const b = await openBrowser();
    browsers.push(b);
    await openSignedIn(b.page, server, session);
    return b;
  }

  it("an answer on one member's card reaches the other's card and popup live, and another agency sees nothing", async () => {
    const a = await browserFor(alex);
    const b = await browserFor(blair);
    await (await openAnswers(a.page)).getByText("No answers yet").waitFor({ timeout: 20_000 });
    await (await openAnswers(b.page)).getByText("No answers yet").waitFor({ timeout: 20_000 });

    // Alex: one tap on the card.
    await answers(a.page).getByRole("button", { name: "Responding" }).click();
    // The live count can arrive before the answer's own reply: wait for the reply (the member's answer).
    await answers(a.page)
      .getByText(/^You: Responding · /)
      .waitFor();
    await answers(a.page).getByText("1 responding").waitFor();
    expect(
      await answers(a.page).getByRole("button", { name: "Responding" }).getAttribute("aria-pressed"),
    ).toBe("true");

    // Blair sees it without a reload.
    await answers(b.page).getByText("1 responding").waitFor({ timeout: 10_000 });

    // Blair answers in the popup, with the names shown there.
    await b.page.getByRole("button", { name: `Open details of job ${jobId}` }).click();
    const popup = b.page.getByRole("dialog", { name: `Job #${jobId}` });
    const section = popup.getByRole("region", { name: "Who is responding" });
    await section.getByRole("listitem").filter({ hasText: "Alex Hart" }).waitFor({ timeout: 10_000 });
    await section.getByRole("button", { name: "Not available" }).click();
    await section.getByText("1 responding, 1 not available").waitFor();
    await section.getByRole("listitem").filter({ hasText: "Blair Moss" }).waitFor();

    // Alex's card follows live; Alex's popup lists Blair's answer.
    await answers(a.page).getByText("1 responding, 1 not available").waitFor({ timeout: 10_000 });
    await a.page.getByRole("button", { name: `Open details of job ${jobId}` }).click();
    const alexPopup = a.page.getByRole("dialog", { name: `Job #${jobId}` });
    const blairRow = alexPopup.getByRole("listitem").filter({ hasText: "Blair Moss" });
    await blairRow.waitFor({ timeout: 10_000 });
    expect(await blairRow.textContent()).toContain("Not available");

    // A member of another agency: no card, and the job is not theirs to read or answer.
    const c = await browserFor(casey);
    await c.page.getByRole("article").filter({ hasText: "SES TREE DOWN" }).waitFor({ timeout: 20_000 });
    expect(await c.page.getByRole("article").filter({ hasText: CARD_TEXT }).count()).toBe(0);
    await expect(
      apiJson(server, "GET", `/alerts/${jobId}/responses`, { token: casey.token }),
    ).rejects.toThrow(/: 404 /);
    await expect(
      apiJson(server, "PUT", `/alerts/${jobId}/response`, {
        token: casey.token,
        body: { status: "responding" },
      }),
    ).rejects.toThrow(/: 404 /);

    for (const browser of [a, b, c]) expect(browser.errors).toEqual([]);
  });

  it("an SES member answers an S-job, a standard page with a job number, on the card and sees it in the popup", async () => {
    const [sesJobId] = (await ingest(server, INGEST_KEY, [
      { capcode: SES_CAPCODE, message: SES_JOB_TEXT },
    ])) as [number];
    const c = browsers[2]!;
    await c.page.keyboard.press("Escape");
    const row = await openAnswers(c.page, "SES BENDIGO BUILDING DAMAGE");
    expect(await cardOf(c.page, "SES BENDIGO BUILDING DAMAGE").getByText("STANDARD").isVisible()).toBe(true);
    await row.getByRole("button", { name: "Responding" }).click();
    await row.getByText(/^You: Responding · /).waitFor();
    await row.getByText("1 responding").waitFor();
    // The header says it too, with the row closed.
    const toggle = cardOf(c.page, "SES BENDIGO BUILDING DAMAGE").getByRole("button", {
      name: /^Who is responding/,
    });
    await toggle.click();
    expect(await toggle.getAttribute("aria-label")).toBe("Who is responding: 1 responding. You: Responding");

    await c.page.getByRole("button", { name: `Open details of job ${sesJobId}` }).click();
    const section = c.page
      .getByRole("dialog", { name: `Job #${sesJobId}` })
      .getByRole("region", { name: "Who is responding" });
    await section.getByRole("listitem").filter({ hasText: "Casey Reed" }).waitFor({ timeout: 10_000 });
    // A page that takes no answers says why in its popup, and asks the server nothing.
    const asked: string[] = [];
    c.page.on("request", (r) => {
      if (r.url().includes("/responses")) asked.push(r.url());
    });
    await c.page.keyboard.press("Escape");
    const treeDown = cardOf(c.page, "SES TREE DOWN");
    expect(await treeDown.getByRole("button", { name: /^Who is responding/ }).count()).toBe(0);
    await treeDown.getByRole("button", { name: /^Open details of job / }).click();
    await c.page.getByText("This page has no job number, so it takes no answers.").waitFor();
    expect(asked).toEqual([]);
    expect(c.errors).toEqual([]);
  });

  it("an answer given offline shows as pending and is sent when the network returns", async () => {
    const a = browsers[0]!;
    const b = browsers[1]!;
    await a.page.keyboard.press("Escape");
    await b.page.keyboard.press("Escape");
    await (await openAnswers(a.page)).getByText("1 responding, 1 not available").waitFor();
    await openAnswers(b.page);

    await a.context.setOffline(true);
    await answers(a.page).getByRole("button", { name: "Not available" }).click();
    await answers(a.page).getByText("Pending — will send when online").waitFor();
    // Nothing reached the server: Blair still sees Alex responding.
    await b.page.waitForTimeout(1_000);
    await answers(b.page).getByText("1 responding, 1 not available").waitFor();

    await a.context.setOffline(false);
    await answers(a.page).getByText("2 not available").waitFor({ timeout: 20_000 });
    await answers(a.page).getByText("Pending — will send when online").waitFor({ state: "detached" });
    await answers(b.page).getByText("2 not available").waitFor({ timeout: 10_000 });
    expect(a.errors).toEqual([]);
  });
});
