import { render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { AppProviders, createQueryClient } from "../../../app/providers";
import { mockApi } from "../../../testing/mock-api";
import { SecurityTab } from "./security-tab";

// Dialog journeys type a lot; a loaded machine needs more than the default 5 s.
vi.setConfig({ testTimeout: 20_000 });

const config = [
  {
    key: "otp_max_failed_attempts",
    value: 5,
    default_value: 5,
    description: "Wrong guesses per code before it is voided",
    updated_at: null,
  },
  {
    key: "lockout_duration_seconds",
    value: 900,
    default_value: 900,
    description: "First address lockout",
    updated_at: null,
  },
];

const locks = [
  {
    identifier: "ip_phone:10.0.0.9|+61412345678",
    display: "ip_phone:10.0.0.9|+614•••••678",
    kind: "ip_phone",
    failures: 5,
    locked_until: "2030-01-01T00:00:00.000Z",
    is_locked: true,
    updated_at: "2026-11-20T08:00:00.000Z",
  },
];

const event = (id: number, type: string) => ({
  id,
  event_type: type,
  severity: "warning",
  user_id: 1,
  identifier: null,
  ip_address: "10.0.0.9",
  details: { key: "otp_max_failed_attempts" },
  created_at: "2026-11-20T08:00:00.000Z",
});

function fakeServer() {
  return mockApi({
    "GET /admin/security/config": { body: { success: true, data: config } },
    "GET /admin/security/stats": {
      body: {
        success: true,
        data: { active_lockouts: 1, attempts_24h: { succeeded: 7, failed: 3 }, events_24h: {} },
      },
    },
    "GET /admin/security/brute-force": { body: { success: true, data: locks } },
    "GET /admin/security/otp-attempts": {
      body: {
        success: true,
        data: [
          {
            id: 1,
            user_id: 7,
            phone: "+614•••••678",
            ip_address: "10.0.0.9",
            kind: "login",
            success: false,
            reason: "wrong_code",
            created_at: "2026-11-20T08:00:00.000Z",
          },
        ],
      },
    },
    "GET /admin/security/events": { body: { success: true, data: [event(1, "otp_lockout")] } },
    "GET /admin/security/actions": { body: { success: true, data: [event(2, "admin_config_changed")] } },
    "PUT /admin/security/config/*": (request) => ({
      body: { success: true, data: { key: request.path.split("/").at(-1), value: 6 } },
    }),
    "POST /admin/security/brute-force/clear": { body: { success: true, message: "Lockout cleared." } },
    "POST /admin/security/phone/*": { body: { success: true, message: "Sign-in attempts reset." } },
    "GET /admin/security/users/7/status": {
      body: {
        success: true,
        data: {
          user_id: 7,
          is_active: true,
          is_verified: true,
          failures: 4,
          locked_until: null,
          is_locked: false,
          recent_attempts: [],
        },
      },
    },
    "POST /admin/security/users/7/reset-otp": { body: { success: true, message: "Sign-in attempts reset." } },
    "GET /admin/security/users/7/devices": {
      body: {
        success: true,
        data: [
          {
            id: "6f1c2a52-7b9e-4d8a-9d0e-2b7c1f3a4e5d",
            device_info: "Chrome on Android (Mobile)",
            created_at: "2026-11-01T08:30:00.000Z",
            last_used_at: "2026-11-20T08:30:00.000Z",
            expires_at: "2027-11-20T08:30:00.000Z",
          },
        ],
      },
    },
    "DELETE /admin/security/users/7/devices/*": {
      body: { success: true, message: "1 recognised device revoked.", data: { revoked: 1 } },
    },
    "GET /admin/auto-activation/config": { body: { success: true, data: { enabled: true } } },
    "PUT /admin/auto-activation/config": { body: { success: true, data: { enabled: false } } },
    "GET /admin/auto-activation/admin-notifications": {
      body: {
        success: true,
        data: {
          enabled: false,
          admin_ids: [],
          admins: [
            { id: 1, first_name: "Alex", last_name: "Admin" },
            { id: 2, first_name: "Blair", last_name: "Boss" },
          ],
        },
      },
    },
    "PUT /admin/auto-activation/admin-notifications": {
      body: { success: true, data: { enabled: true, admin_ids: [2], admins: [] } },
    },
    "POST /admin/security/cleanup": {
      body: {
        success: true,
        data: { retention_days: 90, otp_attempts: 12, security_events: 4, lockouts: 1, codes: 30 },
      },
    },
  });
}

function renderTab() {
  const user = userEvent.setup({ delay: null });
  render(
    <AppProviders queryClient={createQueryClient()}>
      <SecurityTab />
    </AppProviders>,
  );
  return user;
}

describe("SecurityTab", () => {
  it("switches auto-activation off and chooses which admins are texted about accounts awaiting review", async () => {
    const server = fakeServer();
    const user = renderTab();
    const section = await screen.findByRole("region", { name: "Auto-activation" });
    const auto = await within(section).findByRole("switch", { name: "Activate new accounts automatically" });
    await waitFor(() => expect(auto).toBeChecked());
    await user.click(auto);
    await waitFor(() =>
      expect(server.callsTo("PUT /admin/auto-activation/config").map((c) => c.body)).toEqual([
        { enabled: false },
      ]),
    );
    await user.click(within(section).getByRole("checkbox", { name: "Blair Boss" }));
    await user.click(
      within(section).getByRole("switch", { name: "Text admins when an account awaits review" }),
    );
    await waitFor(() =>
      expect(server.callsTo("PUT /admin/auto-activation/admin-notifications").map((c) => c.body)).toEqual([
        { enabled: true, admin_ids: [2] },
      ]),
    );
  });

  it("shows the configuration, locks, attempts, events and admin actions from the server", async () => {
    fakeServer();
    renderTab();

    const table = await screen.findByRole("table", { name: "Security configuration" });
    const [row] = within(table).getAllByRole("row").slice(1);
    expect(within(row!).getByText("otp_max_failed_attempts")).toBeInTheDocument();
    expect(within(row!).getByText("Wrong guesses per code before it is voided")).toBeInTheDocument();
    expect(within(row!).getAllByText("5")).toHaveLength(2);

    const lockTable = await screen.findByRole("table", { name: "Brute-force locks" });
    expect(within(lockTable).getByText("ip_phone:10.0.0.9|+614•••••678")).toBeInTheDocument();
    expect(within(lockTable).getByText(/^Locked until/)).toBeInTheDocument();

    const attempts = await screen.findByRole("table", { name: "OTP attempts" });
    expect(within(attempts).getByText("Failed: wrong_code")).toBeInTheDocument();
    expect(
      within(await screen.findByRole("table", { name: "Security events" })).getByText("otp_lockout"),
    ).toBeVisible();
    expect(
      within(await screen.findByRole("table", { name: "Admin actions" })).getByText("admin_config_changed"),
    ).toBeVisible();
    expect(
      await screen.findByText("Active lockouts: 1 · Code checks in the last 24 hours: 7 succeeded, 3 failed"),
    ).toBeInTheDocument();
  });

  it("edits a setting, refusing a value out of range before asking the server", async () => {
    const server = fakeServer();
    const user = renderTab();

    await user.click(await screen.findByRole("button", { name: "Edit otp_max_failed_attempts" }));
    const dialog = await screen.findByRole("dialog", { name: "Edit otp_max_failed_attempts" });
    const value = within(dialog).getByRole("textbox", { name: "Value" });
    await user.clear(value);
    await user.type(value, "0");
    await user.click(within(dialog).getByRole("button", { name: "Save" }));
    expect(within(dialog).getByText("A whole number from 1 to 1,000,000.")).toBeInTheDocument();
    expect(server.requests.filter((request) => request.method === "PUT")).toHaveLength(0);

    await user.clear(value);
    await user.type(value, "6");
    await user.click(within(dialog).getByRole("button", { name: "Save" }));

    await waitFor(() =>
      expect(server.callsTo("PUT /admin/security/config/otp_max_failed_attempts").map((c) => c.body)).toEqual(
        [{ value: 6 }],
      ),
    );
    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
    await waitFor(() => expect(server.callsTo("GET /admin/security/config")).toHaveLength(2));
  });

  it("shows the server's validation message when it refuses a setting", async () => {
    const server = fakeServer();
    server.on("PUT /admin/security/config/*", {
      status: 400,
      body: {
        success: false,
        message: "value must be a whole number from 1 to 1000000",
        errorType: "validation_error",
      },
    });
    const user = renderTab();

    await user.click(await screen.findByRole("button", { name: "Edit lockout_duration_seconds" }));
    const dialog = await screen.findByRole("dialog", { name: "Edit lockout_duration_seconds" });
    await user.click(within(dialog).getByRole("button", { name: "Save" }));

    expect(
      await within(dialog).findByText("value must be a whole number from 1 to 1000000"),
    ).toBeInTheDocument();
  });

  it("clears a brute-force lock by its identifier after confirmation", async () => {
    const server = fakeServer();
    const user = renderTab();

    await user.click(await screen.findByRole("button", { name: "Clear ip_phone:10.0.0.9|+614•••••678" }));
    const dialog = await screen.findByRole("alertdialog", { name: "Clear this lock?" });
    expect(server.callsTo("POST /admin/security/brute-force/clear")).toHaveLength(0);
    await user.click(within(dialog).getByRole("button", { name: "Clear" }));

    expect(await screen.findByText("Lockout cleared.")).toBeInTheDocument();
    expect(server.callsTo("POST /admin/security/brute-force/clear").map((c) => c.body)).toEqual([
      { identifier: "ip_phone:10.0.0.9|+61412345678" },
    ]);
  });

  it("resets OTP by phone, normalising the number and refusing one that is not a phone", async () => {
    const server = fakeServer();
    const user = renderTab();

    const phone = await screen.findByRole("textbox", { name: "Phone number" });
    await user.type(phone, "12");
    await user.click(screen.getByRole("button", { name: "Reset OTP by phone" }));
    expect(screen.getByText("Enter a valid phone number, e.g. 0412 345 678.")).toBeInTheDocument();

    await user.clear(phone);
    await user.type(phone, "0412 345 678");
    await user.click(screen.getByRole("button", { name: "Reset OTP by phone" }));

    expect(await screen.findByText("Sign-in attempts reset. (+614•••••678)")).toBeInTheDocument();
    const calls = server.requests.filter(
      (r) => r.method === "POST" && r.path.startsWith("/admin/security/phone/"),
    );
    // The + is escaped in the path so no server or proxy can read it as a space.
    expect(calls.map((call) => call.path)).toEqual(["/admin/security/phone/%2B61412345678/reset-otp"]);
  });

  it("shows a user's sign-in status and resets their OTP", async () => {
    const server = fakeServer();
    const user = renderTab();

    await user.type(await screen.findByRole("textbox", { name: "User id" }), "7");
    await user.click(screen.getByRole("button", { name: "Show status" }));
    const status = await screen.findByRole("group", { name: "Status of user 7" });
    expect(await within(status).findByText("Failed sign-ins: 4")).toBeInTheDocument();
    expect(within(status).getByText("Not locked")).toBeInTheDocument();

    await user.click(within(status).getByRole("button", { name: "Reset sign-in attempts" }));
    expect(await screen.findByText("Sign-in attempts reset.")).toBeInTheDocument();
    expect(server.callsTo("POST /admin/security/users/7/reset-otp")).toHaveLength(1);
  });

  it("lists a user's recognised devices and revokes one", async () => {
    const server = fakeServer();
    const user = renderTab();

    await user.type(await screen.findByRole("textbox", { name: "User id" }), "7");
    await user.click(screen.getByRole("button", { name: "Show status" }));
    const devices = await screen.findByRole("group", { name: "Recognised devices" });
    expect(await within(devices).findByText("Recognised devices: 1")).toBeInTheDocument();
    await user.click(within(devices).getByRole("button", { name: "Revoke Chrome on Android (Mobile)" }));
    expect(await screen.findByText("1 recognised device revoked.")).toBeInTheDocument();
    expect(server.requests.filter((c) => c.method === "DELETE").map((c) => c.path)).toEqual([
      "/admin/security/users/7/devices/6f1c2a52-7b9e-4d8a-9d0e-2b7c1f3a4e5d",
    ]);
  });

  it("cleans up only after confirmation and reports what was removed", async () => {
    const server = fakeServer();
    const user = renderTab();

    await user.click(await screen.findByRole("button", { name: "Clean up old security data" }));
    const dialog = await screen.findByRole("alertdialog", { name: "Clean up security data?" });
    await user.click(within(dialog).getByRole("button", { name: "Cancel" }));
    await waitFor(() => expect(screen.queryByRole("alertdialog")).toBeNull());
    expect(server.callsTo("POST /admin/security/cleanup")).toHaveLength(0);

    await user.click(screen.getByRole("button", { name: "Clean up old security data" }));
    await user.click(
      within(await screen.findByRole("alertdialog", { name: "Clean up security data?" })).getByRole(
        "button",
        {
          name: "Clean up",
        },
      ),
    );

    expect(
      await screen.findByText(
        "Removed 12 OTP attempts, 4 security events, 1 lock records and 30 expired codes older than 90 days.",
      ),
    ).toBeInTheDocument();
    expect(server.callsTo("POST /admin/security/cleanup")).toHaveLength(1);
  });
});
