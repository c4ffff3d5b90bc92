import { render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { AppProviders, createQueryClient } from "../../../app/providers";
import { mockApi } from "../../../testing/mock-api";
import { SMS_QUEUE_IN_FLIGHT_REFRESH_MS } from "./queries";
import { SmsTab } from "./sms-tab";

function queueItem(overrides: Record<string, unknown> = {}) {
  return {
    id: 11,
    to: "+614****678",
    kind: "rule",
    status: "failed",
    body: "Turnout alert: STRUCTURE FIRE 12 SMITH ST",
    attempts: 3,
    max_attempts: 3,
    last_error: "provider said 503",
    created_at: "2026-11-20T08:00:00.000Z",
    sent_at: null,
    ...overrides,
  };
}

function service(overrides: Record<string, unknown> = {}) {
  return {
    status: "connected",
    is_enabled: true,
    provider: "messagemedia",
    sender_address: "Turnout",
    last_api_check: "2026-11-20T08:00:00.000Z",
    api_response_time: 120,
    success_rate: 97.5,
    total_sent: 1234,
    pending: 0,
    failed: 1,
    ...overrides,
  };
}

function fakeServer(serviceReply = service()) {
  return mockApi({
    "GET /admin/sms/queue": {
      body: {
        success: true,
        data: [
          queueItem(),
          queueItem({ id: 12, kind: "otp", body: null, last_error: "timeout" }),
          queueItem({ id: 13, status: "sent", body: "Your alert rule was approved", attempts: 1 }),
        ],
      },
    },
    "GET /admin/system/sms": { body: { success: true, data: serviceReply } },
    "POST /admin/sms/retry/11": { body: { success: true, message: "SMS queued again." } },
    "POST /admin/sms/retry-all": { body: { success: true, message: "4 failed SMS queued again." } },
    "POST /admin/sms/handle-stuck": { body: { success: true, message: "2 stuck SMS released." } },
  });
}

function renderTab() {
  const user = userEvent.setup({ delay: null });
  render(
    <AppProviders queryClient={createQueryClient()}>
      <SmsTab />
    </AppProviders>,
  );
  return user;
}

function serviceCard() {
  return screen.findByRole("region", { name: "SMS Service" });
}

describe("SmsTab", () => {
  it("shows the queue as the server sends it, a code SMS without its body", async () => {
    fakeServer();
    renderTab();

    const table = await screen.findByRole("table", { name: "SMS queue" });
    const rows = within(table).getAllByRole("row").slice(1);
    expect(rows).toHaveLength(3);
    expect(within(rows[0]!).getByText("Turnout alert: STRUCTURE FIRE 12 SMITH ST")).toBeInTheDocument();
    expect(within(rows[0]!).getByText("3 of 3")).toBeInTheDocument();
    expect(within(rows[0]!).getByText("provider said 503")).toBeInTheDocument();
    expect(within(rows[1]!).getByText("Hidden: carries a sign-in or activation code")).toBeInTheDocument();
    // Code SMS are never sent again, and sent ones need no retry.
    expect(within(rows[1]!).queryByRole("button", { name: /Retry/ })).toBeNull();
    expect(within(rows[2]!).queryByRole("button", { name: /Retry/ })).toBeNull();
  });

  it("asks for the chosen status", async () => {
    const server = fakeServer();
    const user = renderTab();
    await screen.findByRole("table", { name: "SMS queue" });

    await user.click(screen.getByRole("combobox", { name: "Status" }));
    await user.click(screen.getByRole("option", { name: "failed" }));

    await waitFor(() =>
      expect(server.callsTo("GET /admin/sms/queue").map((call) => call.query.get("status"))).toEqual([
        null,
        "failed",
      ]),
    );
  });

  it("retries one failed SMS and shows the server's answer", async () => {
    const server = fakeServer();
    const user = renderTab();

    await user.click(await screen.findByRole("button", { name: "Retry SMS 11 to +614****678" }));

    expect(await screen.findByText("SMS queued again.")).toBeInTheDocument();
    expect(server.callsTo("POST /admin/sms/retry/11")).toHaveLength(1);
    await waitFor(() => expect(server.callsTo("GET /admin/sms/queue")).toHaveLength(2));
  });

  it("reads the queue again while an SMS is on its way, until it shows the outcome", async () => {
    const server = fakeServer();
    server.on("GET /admin/sms/queue", {
      body: {
        success: true,
        data: [queueItem({ id: 21, status: "pending", body: "Your rule was approved" })],
      },
    });
    renderTab();
    const pendingRow = await screen.findByRole("row", { name: /pending/ });
    expect(pendingRow).toBeInTheDocument();
    server.on("GET /admin/sms/queue", {
      body: { success: true, data: [queueItem({ id: 21, status: "sent", body: "Your rule was approved" })] },
    });
    expect(
      await screen.findByRole("row", { name: /sent/ }, { timeout: SMS_QUEUE_IN_FLIGHT_REFRESH_MS * 3 }),
    ).toBeInTheDocument();
    const reads = server.callsTo("GET /admin/sms/queue").length;
    await new Promise((resolve) => setTimeout(resolve, SMS_QUEUE_IN_FLIGHT_REFRESH_MS + 500));
    expect(server.callsTo("GET /admin/sms/queue")).toHaveLength(reads);
  }, 20_000);

  it("retries all failed SMS only after confirmation", async () => {
    const server = fakeServer();
    const user = renderTab();
    await screen.findByRole("table", { name: "SMS queue" });

    await user.click(screen.getByRole("button", { name: "Retry all failed" }));
    const dialog = await screen.findByRole("alertdialog", { name: "Retry all failed SMS?" });
    await user.click(within(dialog).getByRole("button", { name: "Cancel" }));
    await waitFor(() => expect(screen.queryByRole("alertdialog")).toBeNull());
    expect(server.callsTo("POST /admin/sms/retry-all")).toHaveLength(0);

    await user.click(screen.getByRole("button", { name: "Retry all failed" }));
    await user.click(
      within(await screen.findByRole("alertdialog", { name: "Retry all failed SMS?" })).getByRole("button", {
        name: "Retry all",
      }),
    );
    expect(await screen.findByText("4 failed SMS queued again.")).toBeInTheDocument();
    expect(server.callsTo("POST /admin/sms/retry-all")).toHaveLength(1);
  });

  it("releases stuck SMS", async () => {
    const server = fakeServer();
    const user = renderTab();
    await screen.findByRole("table", { name: "SMS queue" });

    await user.click(screen.getByRole("button", { name: "Handle stuck" }));

    expect(await screen.findByText("2 stuck SMS released.")).toBeInTheDocument();
    expect(server.callsTo("POST /admin/sms/handle-stuck")).toHaveLength(1);
  });

  it("shows the service card with status, sender, last check, response time and total sent", async () => {
    fakeServer();
    renderTab();

    const card = await serviceCard();
    expect(within(card).getByText("Connected")).toBeInTheDocument();
    expect(within(card).getByText("Sender: Turnout")).toBeInTheDocument();
    expect(within(card).getByText("Response time: 120 ms")).toBeInTheDocument();
    expect(within(card).getByText("Total sent: 1234")).toBeInTheDocument();
    expect(within(card).getByText(/^Last check: (?!Never)/)).toBeInTheDocument();
  });

  it.each([
    [97.5, "Success"],
    [85, "Warning"],
    [60, "Error"],
  ])("colours a success rate of %s per cent as %s", async (rate, colour) => {
    fakeServer(service({ success_rate: rate }));
    renderTab();

    const card = await serviceCard();
    const bar = within(card).getByRole("progressbar", { name: `Success rate: ${rate}%` });
    expect(bar).toHaveClass(`MuiLinearProgress-color${colour}`);
  });

  it("reads an unknown provider status as disconnected", async () => {
    fakeServer(service({ status: "weird", success_rate: null }));
    renderTab();

    const card = await serviceCard();
    expect(within(card).getByText("Disconnected")).toBeInTheDocument();
    expect(within(card).getByText("Success rate: no SMS finished yet")).toBeInTheDocument();
  });
});
