import { act, render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { KEYWORD_SPACES_COMMAS_MESSAGE, MESSAGES, TOAST_MS } from "@turnout/domain";
import { AppProviders, createQueryClient } from "../../app/providers";
import { type MockApi, mockApi } from "../../testing/mock-api";
import { MyAlertsDialog } from "./my-alerts-dialog";

/** Only the timers the dialog uses: faking more stalls the fetch Response body reader. */
const FAKE_TIMERS = {
  shouldAdvanceTime: true,
  toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date"],
} satisfies Parameters<typeof vi.useFakeTimers>[0];

function rule(overrides: Record<string, unknown> = {}) {
  return {
    id: 1,
    name: "Structure fires",
    description: "Fires near home",
    keywords: ["structure", "fire"],
    agencies: [],
    priority_levels: [],
    status: "approved",
    is_active: true,
    rejection_reason: null,
    triggers_last_30_days: 3,
    created_at: "2026-11-01T08:00:00.000Z",
    updated_at: "2026-11-01T08:00:00.000Z",
    ...overrides,
  };
}

const agencies = [
  { id: 2, name: "Country Fire Authority", code: "CFA" },
  { id: 3, name: "State Emergency Service", code: "SES" },
];

const preview = {
  total_matches: 12,
  sample_messages: [
    {
      agency_name: "Country Fire Authority",
      created_at: "2026-10-30T02:15:00.000Z",
      message: "@@ALERT F261234567 STRUCTURE FIRE 12 SMITH ST BENDIGO",
    },
  ],
};

/** A fake /api/user-alerts holding `rules`; every GET answers the current list. */
function fakeServer(
  initial: Array<ReturnType<typeof rule>>,
): MockApi & { rules: Array<ReturnType<typeof rule>> } {
  const state = { rules: [...initial] };
  const server = mockApi({
    "GET /user-alerts": () => ({ body: { success: true, data: state.rules } }),
    "GET /user-alerts/meta/agencies": { body: { success: true, data: agencies } },
    "POST /user-alerts/preview": { body: { success: true, data: preview } },
  });
  return Object.assign(server, state);
}

// Whole create-and-edit journeys type a lot; a loaded machine needs more than the default 5 s.
vi.setConfig({ testTimeout: 20_000 });

function renderDialog({ advanceTimers }: { advanceTimers?: (ms: number) => void } = {}) {
  const user = userEvent.setup(advanceTimers ? { advanceTimers } : { delay: null });
  const onClose = vi.fn();
  render(
    <AppProviders queryClient={createQueryClient()}>
      <MyAlertsDialog open onClose={onClose} />
    </AppProviders>,
  );
  return { user, onClose, dialog: () => screen.getByRole("dialog", { name: "My Alerts" }) };
}

type User = ReturnType<typeof userEvent.setup>;

async function openNewAlert(user: User) {
  await screen.findByRole("heading", { name: "Your Alerts" });
  await user.click(screen.getByRole("button", { name: "New Alert" }));
  return screen.findByRole("heading", { name: "New Alert" });
}

describe("My Alerts list", () => {
  it("shows each rule's name, keyword chips, status in words, triggers and the rejection reason", async () => {
    fakeServer([
      rule(),
      rule({
        id: 2,
        name: "Flood watch",
        keywords: ["flood"],
        status: "rejected",
        is_active: false,
        rejection_reason: "Too broad",
        triggers_last_30_days: 1,
        agencies: [3],
        priority_levels: ["emergency"],
      }),
      rule({ id: 3, name: "Odd status", keywords: ["odd"], status: "archived", is_active: false }),
      rule({ id: 4, name: "Paused", keywords: ["paused"], status: "suspended", is_active: false }),
    ]);
    renderDialog();

    const fires = await screen.findByRole("listitem", { name: "Structure fires" });
    expect(within(fires).getByText("Approved")).toBeInTheDocument();
    const keywords = within(within(fires).getByRole("list", { name: "Keywords" })).getAllByRole("listitem");
    expect(keywords.map((item) => item.textContent)).toEqual(["structure", "fire"]);
    expect(within(fires).getByText("3 triggers in the last 30 days")).toBeInTheDocument();
    expect(within(fires).getByText(/Agencies: All · Message types: All/)).toBeInTheDocument();

    const flood = screen.getByRole("listitem", { name: "Flood watch" });
    expect(within(flood).getByText("Rejected")).toBeInTheDocument();
    expect(within(flood).getByText(/Rejection reason: Too broad/)).toBeInTheDocument();
    expect(within(flood).getByText("1 trigger in the last 30 days")).toBeInTheDocument();
    await waitFor(() =>
      expect(
        within(flood).getByText(/Agencies: State Emergency Service · Message types: Emergency/),
      ).toBeInTheDocument(),
    );

    expect(
      within(screen.getByRole("listitem", { name: "Odd status" })).getByText("Pending review"),
    ).toBeInTheDocument();
    expect(
      within(screen.getByRole("listitem", { name: "Paused" })).getByText("Suspended"),
    ).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Edit Flood watch" })).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Delete Flood watch" })).toBeInTheDocument();
    expect(
      screen.getByText(/An SMS is sent only when ALL keywords appear in the same message/),
    ).toBeInTheDocument();
    expect(screen.getByText(/reviewed by an admin before they become active/)).toBeInTheDocument();
  });

  it("offers the enable switch on approved rules only", async () => {
    fakeServer([
      rule(),
      rule({ id: 2, name: "Waiting", status: "pending", is_active: false }),
      rule({ id: 3, name: "Refused", status: "rejected", is_active: false }),
      rule({ id: 4, name: "Stopped", status: "suspended", is_active: false }),
    ]);
    renderDialog();
    await screen.findByRole("listitem", { name: "Structure fires" });
    const switches = screen.getAllByRole("switch");
    expect(switches).toHaveLength(1);
    expect(switches[0]).toHaveAccessibleName("SMS for Structure fires");
    expect(switches[0]).toBeChecked();
  });

  it("toggles an approved rule and shows what the server answered", async () => {
    const server = fakeServer([rule()]);
    server.on("PATCH /user-alerts/1/toggle", { body: { success: true, data: rule({ is_active: false }) } });
    const { user } = renderDialog();
    const toggle = await screen.findByRole("switch", { name: "SMS for Structure fires" });
    await user.click(toggle);
    await waitFor(() => expect(toggle).not.toBeChecked());
    expect(server.callsTo("PATCH /user-alerts/1/toggle")).toHaveLength(1);
    expect(screen.getByText("SMS off")).toBeInTheDocument();
  });

  it("shows 'Failed to toggle alert' when the toggle is refused", async () => {
    const server = fakeServer([rule()]);
    server.on("PATCH /user-alerts/1/toggle", {
      status: 409,
      body: { success: false, errorType: "conflict", message: "Only approved alerts can be toggled" },
    });
    const { user } = renderDialog();
    await user.click(await screen.findByRole("switch", { name: "SMS for Structure fires" }));
    const popup = await screen.findByRole("alert");
    expect(popup).toHaveTextContent("Error");
    expect(popup).toHaveTextContent(MESSAGES.RULE_TOGGLE_FAILED);
    expect(screen.getByRole("switch", { name: "SMS for Structure fires" })).toBeChecked();
  });

  it("shows an empty state when there are no rules", async () => {
    fakeServer([]);
    renderDialog();
    expect(await screen.findByText("You have no alerts yet.")).toBeInTheDocument();
    expect(screen.queryByRole("list", { name: "Your alerts" })).not.toBeInTheDocument();
  });

  it("closes with the close button", async () => {
    fakeServer([]);
    const { user, onClose } = renderDialog();
    await user.click(await screen.findByRole("button", { name: "Close My Alerts" }));
    expect(onClose).toHaveBeenCalledOnce();
  });
});

describe("keyword fields", () => {
  it("strips spaces and commas and lower-cases what is typed", async () => {
    fakeServer([]);
    const { user } = renderDialog();
    await openNewAlert(user);
    const first = screen.getByRole("textbox", { name: /Keyword 1/ });
    expect(first).toBeRequired();
    await user.type(first, "Smoke");
    expect(first).toHaveValue("smoke");
    expect(screen.queryByText(KEYWORD_SPACES_COMMAS_MESSAGE)).not.toBeInTheDocument();
    await user.type(first, " Alarm,");
    expect(first).toHaveValue("smokealarm");
    expect(screen.getByText(KEYWORD_SPACES_COMMAS_MESSAGE)).toBeInTheDocument();
  });

  it("says 'Spaces and commas are not allowed' when pasted text has them, and keeps the field clean", async () => {
    fakeServer([]);
    const { user } = renderDialog();
    await openNewAlert(user);
    const first = screen.getByRole("textbox", { name: /Keyword 1/ });
    await user.click(first);
    await user.paste("Grass, Fire");
    expect(first).toHaveValue("grassfire");
    expect(screen.getByRole("alert")).toHaveTextContent(
      "Spaces and commas are not allowed. Use separate keyword fields instead.",
    );
    await user.type(first, "s");
    expect(screen.queryByText(KEYWORD_SPACES_COMMAS_MESSAGE)).not.toBeInTheDocument();
  });

  it("adds fields and removes them while more than one remains", async () => {
    fakeServer([]);
    const { user } = renderDialog();
    await openNewAlert(user);
    expect(screen.queryByRole("button", { name: /Remove keyword/ })).not.toBeInTheDocument();

    await user.click(screen.getByRole("button", { name: "Add keyword" }));
    const second = screen.getByRole("textbox", { name: "Keyword 2" });
    expect(second).toHaveFocus();
    expect(second).not.toBeRequired();
    await user.type(second, "pump");
    await user.click(screen.getByRole("button", { name: "Add keyword" }));
    expect(screen.getAllByRole("button", { name: /Remove keyword/ })).toHaveLength(3);

    await user.click(screen.getByRole("button", { name: "Remove keyword 1" }));
    expect(screen.getByRole("textbox", { name: /Keyword 1/ })).toHaveValue("pump");
    await user.click(screen.getByRole("button", { name: "Remove keyword 2" }));
    expect(screen.getAllByRole("textbox", { name: /Keyword/ })).toHaveLength(1);
    expect(screen.queryByRole("button", { name: /Remove keyword/ })).not.toBeInTheDocument();
  });
});

describe("creating a rule", () => {
  it("keeps Preview disabled until a keyword is entered", async () => {
    fakeServer([]);
    const { user } = renderDialog();
    await openNewAlert(user);
    const previewButton = screen.getByRole("button", { name: "Preview" });
    expect(previewButton).toBeDisabled();
    await user.type(screen.getByRole("textbox", { name: /Keyword 1/ }), "   ,, ");
    expect(previewButton).toBeDisabled();
    await user.type(screen.getByRole("textbox", { name: /Keyword 1/ }), "fire");
    expect(previewButton).toBeEnabled();
    await user.clear(screen.getByRole("textbox", { name: /Keyword 1/ }));
    expect(previewButton).toBeDisabled();
  });

  it("asks for a name before previewing", async () => {
    const server = fakeServer([]);
    const { user } = renderDialog();
    await openNewAlert(user);
    await user.type(screen.getByRole("textbox", { name: /Keyword 1/ }), "fire");
    await user.click(screen.getByRole("button", { name: "Preview" }));
    expect(screen.getByText("Name is required")).toBeInTheDocument();
    expect(server.callsTo("POST /user-alerts/preview")).toHaveLength(0);
  });

  it("goes through preview to create a rule that is listed as pending", async () => {
    const server = fakeServer([]);
    server.on("POST /user-alerts", (request) => {
      const created = rule({
        id: 9,
        ...(request.body as object),
        status: "pending",
        is_active: false,
        triggers_last_30_days: 0,
      });
      server.rules.push(created);
      return { status: 201, body: { success: true, data: created } };
    });
    const { user } = renderDialog();
    await openNewAlert(user);
    expect(screen.getByRole("heading", { name: "New Alert" })).toHaveFocus();

    await user.type(screen.getByRole("textbox", { name: /Alert name/ }), "Bendigo fires");
    await user.type(screen.getByRole("textbox", { name: /Description/ }), "Near the station");
    await user.type(screen.getByRole("textbox", { name: /Keyword 1/ }), "Bendigo");
    await user.click(screen.getByRole("button", { name: "Add keyword" }));
    await user.type(screen.getByRole("textbox", { name: "Keyword 2" }), "FIRE");
    await user.click(await screen.findByRole("checkbox", { name: "Country Fire Authority" }));
    await user.click(screen.getByRole("checkbox", { name: "Emergency" }));
    expect(screen.getByRole("checkbox", { name: "Non-Emergency" })).toBeInTheDocument();
    expect(screen.getByRole("checkbox", { name: "Admin" })).toBeInTheDocument();
    await user.click(screen.getByRole("combobox", { name: "How to alert me" }));
    await user.click(await screen.findByRole("option", { name: "SMS and push" }));
    await user.click(screen.getByRole("button", { name: "Preview" }));

    const heading = await screen.findByRole("heading", { name: "Preview: Bendigo fires" });
    expect(heading).toHaveFocus();
    expect(server.callsTo("POST /user-alerts/preview")[0]?.body).toEqual({
      keywords: ["bendigo", "fire"],
      agencies: [2],
      priority_levels: ["emergency"],
    });
    expect(screen.getByText("12 matching messages in the last 3 months")).toBeInTheDocument();
    const samples = screen.getByRole("list", { name: "Sample messages" });
    expect(samples).toHaveTextContent("Country Fire Authority");
    expect(samples).toHaveTextContent("ALERT F261234567 STRUCTURE FIRE 12 SMITH ST BENDIGO");
    expect(samples).not.toHaveTextContent("@@");

    await user.click(screen.getByRole("button", { name: "Create Alert" }));
    const created = await screen.findByRole("listitem", { name: "Bendigo fires" });
    expect(server.callsTo("POST /user-alerts")[0]?.body).toEqual({
      name: "Bendigo fires",
      description: "Near the station",
      keywords: ["bendigo", "fire"],
      agencies: [2],
      priority_levels: ["emergency"],
      delivery: "sms_and_push",
      units_only: true,
    });
    expect(within(created).getByText("Pending review")).toBeInTheDocument();
    expect(within(created).queryByRole("switch")).not.toBeInTheDocument();
    expect(screen.getByRole("status")).toHaveTextContent("Alert created");
    expect(screen.getByRole("heading", { name: "Your Alerts" })).toHaveFocus();
  });

  it.each([
    [
      { total_matches: 1000, total_matches_capped: true, sample_messages: preview.sample_messages },
      "More than 1000 matching messages in the last 3 months",
    ],
    [
      { total_matches: 1, sample_messages: preview.sample_messages },
      "1 matching message in the last 3 months",
    ],
    [{ total_matches: 0, sample_messages: [] }, "0 matching messages in the last 3 months"],
  ])("words the preview count (%#)", async (result, text) => {
    const server = fakeServer([]);
    server.on("POST /user-alerts/preview", { body: { success: true, data: result } });
    const { user } = renderDialog();
    await openNewAlert(user);
    await user.type(screen.getByRole("textbox", { name: /Alert name/ }), "Everything");
    await user.type(screen.getByRole("textbox", { name: /Keyword 1/ }), "e");
    await user.click(screen.getByRole("button", { name: "Preview" }));
    expect(await screen.findByText(text)).toBeInTheDocument();
    if (result.sample_messages.length === 0) {
      expect(screen.getByText(/No messages matched/)).toBeInTheDocument();
      expect(screen.queryByRole("list", { name: "Sample messages" })).not.toBeInTheDocument();
    } else {
      expect(screen.getByRole("list", { name: "Sample messages" })).toBeInTheDocument();
    }
  });

  it("goes back from preview to the form with everything still filled in", async () => {
    fakeServer([]);
    const { user } = renderDialog();
    await openNewAlert(user);
    await user.type(screen.getByRole("textbox", { name: /Alert name/ }), "Grass");
    await user.type(screen.getByRole("textbox", { name: /Keyword 1/ }), "grass");
    await user.click(screen.getByRole("button", { name: "Preview" }));
    await user.click(await screen.findByRole("button", { name: "Back" }));
    expect(await screen.findByRole("heading", { name: "New Alert" })).toHaveFocus();
    expect(screen.getByRole("textbox", { name: /Alert name/ })).toHaveValue("Grass");
    expect(screen.getByRole("textbox", { name: /Keyword 1/ })).toHaveValue("grass");
  });

  it("shows the server's message when saving is refused, and 'Failed to save alert' when it says nothing", async () => {
    const server = fakeServer([]);
    server.on("POST /user-alerts", {
      status: 409,
      body: {
        success: false,
        errorType: "conflict",
        message: "You already have an alert with these keywords",
      },
    });
    const { user } = renderDialog();
    await openNewAlert(user);
    await user.type(screen.getByRole("textbox", { name: /Alert name/ }), "Grass");
    await user.type(screen.getByRole("textbox", { name: /Keyword 1/ }), "grass");
    await user.click(screen.getByRole("button", { name: "Preview" }));
    await user.click(await screen.findByRole("button", { name: "Create Alert" }));
    expect(await screen.findByRole("alert")).toHaveTextContent(
      "You already have an alert with these keywords",
    );
    expect(screen.getByRole("button", { name: "Create Alert" })).toBeEnabled();

    await user.click(screen.getByRole("button", { name: "Dismiss error" }));
    server.on("POST /user-alerts", { status: 500 });
    await user.click(screen.getByRole("button", { name: "Create Alert" }));
    expect(await screen.findByRole("alert")).toHaveTextContent(MESSAGES.RULE_SAVE_FAILED);
  });

  it("hides the 'Failed to generate preview' popup after 4 seconds", async () => {
    const server = fakeServer([]);
    server.on("POST /user-alerts/preview", { status: 500, body: { success: false, message: "boom" } });
    const { user } = renderDialog({
      advanceTimers: (ms) => {
        if (vi.isFakeTimers()) vi.advanceTimersByTime(ms);
      },
    });
    await openNewAlert(user);
    await user.type(screen.getByRole("textbox", { name: /Alert name/ }), "Grass");
    await user.type(screen.getByRole("textbox", { name: /Keyword 1/ }), "grass");
    // Fake time only from here: the popup's timer is what is under test.
    vi.useFakeTimers(FAKE_TIMERS);
    await user.click(screen.getByRole("button", { name: "Preview" }));

    const popup = await screen.findByRole("alert");
    expect(popup).toHaveTextContent("Error");
    expect(popup).toHaveTextContent(MESSAGES.PREVIEW_FAILED);
    expect(screen.getByRole("heading", { name: "New Alert" })).toBeInTheDocument();

    act(() => vi.advanceTimersByTime(TOAST_MS - 100));
    expect(screen.getByRole("alert")).toHaveTextContent(MESSAGES.PREVIEW_FAILED);
    act(() => vi.advanceTimersByTime(100));
    await waitFor(() => expect(screen.queryByText(MESSAGES.PREVIEW_FAILED)).not.toBeInTheDocument());
  });
});

describe("editing and deleting", () => {
  it("edits a rule through preview with 'Update Alert'", async () => {
    const server = fakeServer([rule({ id: 5, agencies: [3], priority_levels: ["administrative"] })]);
    server.on("PUT /user-alerts/5", (request) => {
      const updated = rule({ id: 5, ...(request.body as object), status: "pending", is_active: false });
      server.rules.splice(0, 1, updated);
      return { body: { success: true, data: updated } };
    });
    const { user } = renderDialog();
    await user.click(await screen.findByRole("button", { name: "Edit Structure fires" }));

    expect(await screen.findByRole("heading", { name: "Edit Alert" })).toHaveFocus();
    expect(screen.getByRole("textbox", { name: /Alert name/ })).toHaveValue("Structure fires");
    expect(screen.getByRole("textbox", { name: /Description/ })).toHaveValue("Fires near home");
    expect(screen.getByRole("textbox", { name: /Keyword 1/ })).toHaveValue("structure");
    expect(screen.getByRole("textbox", { name: "Keyword 2" })).toHaveValue("fire");
    expect(await screen.findByRole("checkbox", { name: "State Emergency Service" })).toBeChecked();
    expect(screen.getByRole("checkbox", { name: "Admin" })).toBeChecked();

    await user.clear(screen.getByRole("textbox", { name: "Keyword 2" }));
    await user.type(screen.getByRole("textbox", { name: "Keyword 2" }), "smoke");
    await user.click(screen.getByRole("button", { name: "Preview" }));
    await user.click(await screen.findByRole("button", { name: "Update Alert" }));

    const updated = await screen.findByRole("listitem", { name: "Structure fires" });
    await waitFor(() => expect(within(updated).getByText("Pending review")).toBeInTheDocument());
    expect(server.callsTo("PUT /user-alerts/5")[0]?.body).toEqual({
      name: "Structure fires",
      description: "Fires near home",
      keywords: ["structure", "smoke"],
      agencies: [3],
      priority_levels: ["admin"],
      delivery: "sms",
      units_only: true,
    });
    expect(server.callsTo("POST /user-alerts")).toHaveLength(0);
  });

  it("keeps Preview disabled for a saved keyword that has a space, and says why", async () => {
    fakeServer([rule({ keywords: ["smoke alarm"] })]);
    const { user } = renderDialog();
    await user.click(await screen.findByRole("button", { name: "Edit Structure fires" }));
    await screen.findByRole("heading", { name: "Edit Alert" });
    expect(screen.getByRole("button", { name: "Preview" })).toBeDisabled();
    expect(screen.getByText(KEYWORD_SPACES_COMMAS_MESSAGE)).toBeInTheDocument();
  });

  it("deletes only after confirmation", async () => {
    const server = fakeServer([rule()]);
    server.on("DELETE /user-alerts/1", () => {
      server.rules.splice(0);
      return { body: { success: true } };
    });
    const { user } = renderDialog();
    const deleteButton = await screen.findByRole("button", { name: "Delete Structure fires" });

    await user.click(deleteButton);
    let confirm = await screen.findByRole("alertdialog", { name: "Delete Alert" });
    expect(confirm).toHaveTextContent("Structure fires");
    await user.click(within(confirm).getByRole("button", { name: "Cancel" }));
    await waitFor(() => expect(screen.queryByRole("alertdialog")).not.toBeInTheDocument());
    expect(server.callsTo("DELETE /user-alerts/1")).toHaveLength(0);
    expect(deleteButton).toHaveFocus();

    await user.click(deleteButton);
    confirm = await screen.findByRole("alertdialog", { name: "Delete Alert" });
    await user.click(within(confirm).getByRole("button", { name: "Delete" }));
    expect(await screen.findByText("You have no alerts yet.")).toBeInTheDocument();
    expect(server.callsTo("DELETE /user-alerts/1")).toHaveLength(1);
  });

  it("fails to delete silently but refreshes the list", async () => {
    const server = fakeServer([rule()]);
    server.on("DELETE /user-alerts/1", { status: 500, body: { success: false, message: "boom" } });
    const { user } = renderDialog();
    await user.click(await screen.findByRole("button", { name: "Delete Structure fires" }));
    await user.click(
      within(await screen.findByRole("alertdialog", { name: "Delete Alert" })).getByRole("button", {
        name: "Delete",
      }),
    );
    await waitFor(() => expect(server.callsTo("GET /user-alerts")).toHaveLength(2));
    await waitFor(() => expect(screen.queryByRole("alertdialog")).not.toBeInTheDocument());
    expect(screen.queryByRole("alert")).not.toBeInTheDocument();
    expect(screen.getByRole("heading", { name: "Your Alerts" })).toHaveFocus();
    expect(screen.getByRole("listitem", { name: "Structure fires" })).toBeInTheDocument();
  });
});
