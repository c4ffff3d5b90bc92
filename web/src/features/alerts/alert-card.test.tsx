import { ThemeProvider } from "@mui/material/styles";
import { render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { formatDateTime } from "@turnout/domain";
import { themeFor } from "../../app/theme";
import { AlertCard, type CardPanel } from "./alert-card";
import { makeAlert, makeGroup } from "./alert-fixtures";
import { toFeedItem } from "./feed-items";

const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();
const noop = () => {};

function renderCard(
  item: ReturnType<typeof toFeedItem>,
  extra: Partial<Parameters<typeof AlertCard>[0]> = {},
) {
  return render(
    <ThemeProvider theme={themeFor("light")}>
      <AlertCard
        item={item}
        now={Date.now()}
        highlighted={false}
        onOpen={noop}
        onFilterType={noop}
        onFilterAgency={noop}
        onFilterArea={noop}
        {...extra}
      />
    </ThemeProvider>,
  );
}

describe("an alert card", () => {
  it("shows a grouped job's newest page, how many pages it has and when the first was paged", () => {
    const first = makeAlert({
      id: 1,
      group_id: 9,
      job_number: "F261127001",
      message: "@@ALERT F261127001 BRAV2 STRUC1 SHED FIRE 14 EXAMPLE RD SOMEVILLE",
      created_at: minutesAgo(40),
      sent_at: minutesAgo(40),
    });
    const second = makeAlert({
      id: 2,
      group_id: 9,
      job_number: "F261127001",
      type: "non-emergency",
      message: "Hb F261127001 UPDATE: FIRE UNDER CONTROL",
      created_at: minutesAgo(3),
      sent_at: minutesAgo(3),
    });
    renderCard(toFeedItem(makeGroup(first, second)));
    const card = screen.getByRole("article");
    expect(within(card).getByText("F261127001 UPDATE: FIRE UNDER CONTROL")).toBeInTheDocument();
    expect(within(card).queryByText(/SHED FIRE/)).not.toBeInTheDocument();
    // Still an emergency job: the type of its most urgent page.
    expect(card).toHaveAccessibleName("Emergency alert from Country Fire Authority");
    const summary = within(card).getByText(/2 messages · first paged/);
    expect(summary).toHaveTextContent(
      `Job F261127001 · 2 messages · first paged ${formatDateTime(first.sent_at!).split(",")[0]}`,
    );
    expect(summary.querySelector("time")).toHaveAttribute("dateTime", first.sent_at);
    // The header's time is the newest page's.
    expect(within(card).getByText("3m ago")).toBeInTheDocument();
    expect(
      within(card).getByRole("button", { name: "Open all 2 messages of job F261127001" }),
    ).toBeInTheDocument();
  });

  it("cuts long text at three lines (the popup has it whole) and names the agency by code on a phone", () => {
    renderCard(toFeedItem(makeGroup(makeAlert({ message: `@@ALERT ${"LONG TEXT ".repeat(40)}` }))));
    const card = screen.getByRole("article");
    const text = within(card).getByText(/^ALERT LONG TEXT/);
    expect(getComputedStyle(text).getPropertyValue("-webkit-line-clamp")).toBe("3");
    const agency = within(card).getByRole("button", { name: "Show only Country Fire Authority alerts" });
    expect(within(agency).getByText("CFA")).toBeInTheDocument();
    expect(within(agency).getByText("Country Fire Authority")).toBeInTheDocument();
  });

  it("opens and closes its panel from what another feature puts in its header", async () => {
    const user = userEvent.setup();
    const aside = (_item: unknown, panel: CardPanel) => (
      <button type="button" aria-expanded={panel.open} aria-controls={panel.id} onClick={panel.onToggle}>
        Answers
      </button>
    );
    const footer = (_item: unknown, panel: CardPanel) =>
      panel.open ? <div id={panel.id}>The answer row</div> : null;
    renderCard(toFeedItem(makeGroup(makeAlert())), { renderAside: aside, renderFooter: footer });
    expect(screen.queryByText("The answer row")).not.toBeInTheDocument();
    await user.click(screen.getByRole("button", { name: "Answers" }));
    expect(screen.getByText("The answer row")).toHaveAttribute(
      "id",
      screen.getByRole("button", { name: "Answers" }).getAttribute("aria-controls"),
    );
    await user.click(screen.getByRole("button", { name: "Answers" }));
    expect(screen.queryByText("The answer row")).not.toBeInTheDocument();
  });
});
