import { screen, waitFor, within } from "@testing-library/react";
import { MESSAGES } from "@turnout/domain";
import { mockApi } from "../../testing/mock-api";
import { renderApp } from "../../testing/render-app";
import { makeToken, testAgency, testUser } from "../../testing/session-fixtures";
import { pageNavigation } from "../../ui/page-navigation";

const canCreate = { body: { success: true, canCreate: true, maxSessions: 2, sessions: [] } };
const codeSent = { body: { success: true, message: "Code sent" } };
const sessions = [
  {
    id: 11,
    device_info: "Chrome on Android (Mobile)",
    last_activity: new Date(Date.now() - 5 * 60_000).toISOString(),
    ip_address: "10.0.0.1",
    created_at: "2026-11-01T08:30:00.000Z",
  },
  {
    id: 12,
    device_info: "Safari on iOS (Tablet)",
    last_activity: new Date(Date.now() - 2 * 3_600_000).toISOString(),
    ip_address: "10.0.0.2",
    created_at: "2026-11-02T09:00:00.000Z",
  },
];

async function submitPhone(user: ReturnType<typeof renderApp>["user"], phone = "0412 345 678") {
  await user.type(await screen.findByLabelText(/Phone number/), phone);
  await user.click(screen.getByRole("button", { name: "Send Code" }));
}

describe("login", () => {
  it("goes from phone to code to a stored session and reloads the page", async () => {
    const token = makeToken();
    const server = mockApi({
      "POST /sessions/check-limit": canCreate,
      "POST /auth/request-otp": codeSent,
      "POST /auth/verify-otp": {
        body: { success: true, message: "ok", data: { token, user: testUser, agency: testAgency } },
      },
    });
    const reload = vi.spyOn(pageNavigation, "reload").mockImplementation(() => {});
    const { user } = renderApp("/");

    await submitPhone(user);
    expect(await screen.findByRole("heading", { name: "Enter Code" })).toBeInTheDocument();
    expect(server.callsTo("POST /sessions/check-limit")[0]?.body).toMatchObject({ phone: "+61412345678" });
    expect(server.callsTo("POST /auth/request-otp")[0]?.body).toEqual({ phone: "+61412345678" });

    const codeInput = screen.getByLabelText(/Verification code/);
    expect(codeInput).toHaveAttribute("inputmode", "numeric");
    expect(codeInput).toHaveAttribute("autocomplete", "one-time-code");
    const verify = screen.getByRole("button", { name: "Verify Code" });
    expect(verify).toBeDisabled();
    await user.type(codeInput, "12a34567");
    expect(codeInput).toHaveValue("123456");
    await user.click(verify);

    await waitFor(() => expect(reload).toHaveBeenCalledOnce());
    expect(server.callsTo("POST /auth/verify-otp")[0]?.body).toEqual({
      phone: "+61412345678",
      otp_code: "123456",
    });
    expect(localStorage.getItem("turnout_token")).toBe(token);
    expect(JSON.parse(localStorage.getItem("turnout_user") ?? "null")).toEqual(testUser);
    expect(JSON.parse(localStorage.getItem("turnout_agency") ?? "null")).toEqual(testAgency);
  });

  it("puts the focus in the code field once the code is sent, described by where it went", async () => {
    mockApi({ "POST /sessions/check-limit": canCreate, "POST /auth/request-otp": codeSent });
    const { user } = renderApp("/");
    await submitPhone(user);
    await screen.findByRole("heading", { name: "Enter Code" });
    const codeInput = screen.getByRole("textbox", { name: /Verification code/ });
    await waitFor(() => expect(codeInput).toHaveFocus());
    expect(codeInput).toHaveAccessibleDescription(/We sent a 6-digit code to \+61412345678/);
    await user.keyboard("708546");
    expect(codeInput).toHaveValue("708546");
  });

  it("takes the code out of a whole pasted SMS", async () => {
    const server = mockApi({
      "POST /sessions/check-limit": canCreate,
      "POST /auth/request-otp": codeSent,
      "POST /auth/verify-otp": {
        status: 400,
        body: { success: false, errorType: "invalid_code", message: "x" },
      },
    });
    const { user } = renderApp("/");
    await submitPhone(user);
    const codeInput = await screen.findByLabelText(/Verification code/);
    await user.click(codeInput);
    await user.paste("Turnout: your sign-in code is 708546. It expires in 5 minutes. Never share it.");
    expect(codeInput).toHaveValue("708546");

    // A second paste replaces the code rather than appending to it.
    await user.paste("Turnout: your sign-in code is 111222. It expires in 5 minutes. Never share it.");
    expect(codeInput).toHaveValue("111222");
    await user.click(screen.getByRole("button", { name: "Verify Code" }));
    await screen.findByRole("alert");
    expect(server.callsTo("POST /auth/verify-otp")[0]?.body).toMatchObject({ otp_code: "111222" });
  });

  it("requires a phone number", async () => {
    const server = mockApi();
    const { user } = renderApp("/");
    await user.click(await screen.findByRole("button", { name: "Send Code" }));
    expect(screen.getByText("Phone number is required")).toBeInTheDocument();
    expect(server.requests).toHaveLength(0);
  });

  it("returns to the phone step with 'Back to Phone Number'", async () => {
    mockApi({ "POST /sessions/check-limit": canCreate, "POST /auth/request-otp": codeSent });
    const { user } = renderApp("/");
    await submitPhone(user);
    await user.click(await screen.findByRole("button", { name: "Back to Phone Number" }));
    expect(screen.getByRole("heading", { name: "Sign In" })).toBeInTheDocument();
  });

  it("sends an unverified account to activation", async () => {
    mockApi({
      "POST /sessions/check-limit": canCreate,
      "POST /auth/request-otp": {
        body: {
          success: false,
          needsVerification: true,
          errorType: "account_not_activated",
          message: "Verify",
        },
      },
    });
    const { user } = renderApp("/");
    await submitPhone(user);
    expect(await screen.findByRole("heading", { name: "Verify Your Account" })).toBeInTheDocument();
    expect(screen.getByText(/sent to \+61412345678/)).toBeInTheDocument();
  });

  it("shows 'user not found' in yellow with words, not only colour", async () => {
    mockApi({
      "POST /sessions/check-limit": { status: 404, body: { success: false, errorType: "user_not_found" } },
      "POST /auth/request-otp": {
        status: 404,
        body: { success: false, errorType: "user_not_found", message: "User not found" },
      },
    });
    const { user } = renderApp("/");
    await submitPhone(user);
    const alert = await screen.findByRole("alert");
    expect(alert).toHaveTextContent(MESSAGES.USER_NOT_FOUND);
    expect(alert).toHaveTextContent("Account not found");
    expect(alert).toHaveClass("kit-notice--warning");
    expect(alert).toHaveAttribute("data-error-type", "user_not_found");
  });

  it("shows the security modal with 15 minutes when locked without a Retry-After", async () => {
    mockApi({
      "POST /sessions/check-limit": canCreate,
      "POST /auth/request-otp": { status: 429, body: { success: false, errorType: "rate_limited" } },
    });
    const { user } = renderApp("/");
    await submitPhone(user);
    const modal = await screen.findByRole("alertdialog", { name: "Account Temporarily Locked" });
    expect(modal).toHaveTextContent("15 minutes");
    expect(modal).toHaveTextContent("multiple failed login attempts");
    await user.click(within(modal).getByRole("button", { name: "I Understand" }));
    await waitFor(() => expect(screen.queryByRole("alertdialog")).not.toBeInTheDocument());
    const alert = screen.getByRole("alert");
    expect(alert).toHaveTextContent(MESSAGES.LOGIN_RATE_LIMITED);
    expect(alert).toHaveClass("kit-notice--error");
  });

  it("says '1 minute' (singular) when the server asks for 60 seconds", async () => {
    mockApi({
      "POST /sessions/check-limit": canCreate,
      "POST /auth/request-otp": {
        status: 429,
        headers: { "Retry-After": "60" },
        body: { success: false, errorType: "rate_limited", message: "Locked", retryAfter: 60 },
      },
    });
    const { user } = renderApp("/");
    await submitPhone(user);
    const modal = await screen.findByRole("alertdialog", { name: "Account Temporarily Locked" });
    expect(modal).toHaveTextContent(/wait 1 minute before/);
  });

  it("lists sessions at the device limit, signs the chosen one out and continues", async () => {
    const server = mockApi({
      "POST /sessions/check-limit": { body: { success: true, canCreate: false, maxSessions: 2, sessions } },
      "POST /sessions/force-logout": { body: { success: true, message: "done" } },
      "POST /auth/request-otp": codeSent,
    });
    const { user } = renderApp("/");
    await submitPhone(user);

    const dialog = await screen.findByRole("dialog", { name: "Maximum Devices Reached" });
    expect(within(dialog).getByText("Chrome on Android (Mobile)")).toBeInTheDocument();
    expect(within(dialog).getByText("IP address: 10.0.0.1")).toBeInTheDocument();
    expect(within(dialog).getByText("Last active: 5 minutes ago")).toBeInTheDocument();
    expect(within(dialog).getAllByText(/^Logged in: /)).toHaveLength(2);
    const proceed = within(dialog).getByRole("button", { name: "Logout Selected Device & Continue" });
    expect(proceed).toBeDisabled();
    expect(server.callsTo("POST /auth/request-otp")).toHaveLength(0);

    await user.click(within(dialog).getByRole("radio", { name: /Safari on iOS/ }));
    await user.click(proceed);

    expect(await screen.findByRole("heading", { name: "Enter Code" })).toBeInTheDocument();
    const forced = server.callsTo("POST /sessions/force-logout")[0];
    expect(forced?.body).toEqual({
      phone: "+61412345678",
      sessionIdToLogout: 12,
      deviceId: localStorage.getItem("turnout_device_id"),
    });
    expect(server.callsTo("POST /auth/request-otp")).toHaveLength(1);
  });

  it("cancels the maximum-devices dialog without requesting a code", async () => {
    const server = mockApi({
      "POST /sessions/check-limit": { body: { success: true, canCreate: false, maxSessions: 2, sessions } },
    });
    const { user } = renderApp("/");
    await submitPhone(user);
    const dialog = await screen.findByRole("dialog", { name: "Maximum Devices Reached" });
    await user.click(within(dialog).getByRole("button", { name: "Cancel" }));
    await waitFor(() => expect(screen.queryByRole("dialog")).not.toBeInTheDocument());
    expect(screen.getByRole("heading", { name: "Sign In" })).toBeInTheDocument();
    expect(server.callsTo("POST /auth/request-otp")).toHaveLength(0);
  });

  it("reports a failed force-logout inside the dialog", async () => {
    mockApi({
      "POST /sessions/check-limit": { body: { success: true, canCreate: false, maxSessions: 2, sessions } },
      "POST /sessions/force-logout": { status: 502 },
    });
    const { user } = renderApp("/");
    await submitPhone(user);
    const dialog = await screen.findByRole("dialog", { name: "Maximum Devices Reached" });
    await user.click(within(dialog).getByRole("radio", { name: /Chrome on Android/ }));
    await user.click(within(dialog).getByRole("button", { name: "Logout Selected Device & Continue" }));
    expect(await within(dialog).findByText(MESSAGES.FORCE_LOGOUT_FAILED)).toBeInTheDocument();
  });

  it("handles the session limit reported by the code check, then verifies again", async () => {
    let verifyCalls = 0;
    const token = makeToken();
    const server = mockApi({
      "POST /sessions/check-limit": canCreate,
      "POST /auth/request-otp": codeSent,
      "POST /sessions/force-logout": { body: { success: true } },
      "POST /auth/verify-otp": () => {
        verifyCalls += 1;
        return verifyCalls === 1
          ? { status: 409, body: { success: false, errorType: "session_limit", maxSessions: 2, sessions } }
          : { body: { success: true, data: { token, user: testUser, agency: null } } };
      },
    });
    const reload = vi.spyOn(pageNavigation, "reload").mockImplementation(() => {});
    const { user } = renderApp("/");
    await submitPhone(user);
    await user.type(await screen.findByLabelText(/Verification code/), "654321");
    await user.click(screen.getByRole("button", { name: "Verify Code" }));
    const dialog = await screen.findByRole("dialog", { name: "Maximum Devices Reached" });
    await user.click(within(dialog).getByRole("radio", { name: /Chrome on Android/ }));
    await user.click(within(dialog).getByRole("button", { name: "Logout Selected Device & Continue" }));
    await waitFor(() => expect(reload).toHaveBeenCalledOnce());
    expect(server.callsTo("POST /auth/verify-otp")).toHaveLength(2);
    expect(localStorage.getItem("turnout_agency")).toBe("null");
  });

  it("shows the server's reason for a wrong code", async () => {
    mockApi({
      "POST /sessions/check-limit": canCreate,
      "POST /auth/request-otp": codeSent,
      "POST /auth/verify-otp": {
        status: 400,
        body: { success: false, errorType: "invalid_code", message: "Invalid or expired code" },
      },
    });
    const { user } = renderApp("/");
    await submitPhone(user);
    await user.type(await screen.findByLabelText(/Verification code/), "000000");
    await user.click(screen.getByRole("button", { name: "Verify Code" }));
    const alert = await screen.findByRole("alert");
    expect(alert).toHaveTextContent("Incorrect code");
    expect(alert).toHaveTextContent("Invalid or expired code");
    expect(alert).not.toHaveTextContent("Something went wrong");
    expect(localStorage.getItem("turnout_token")).toBeNull();
  });

  it("says an expired code has expired", async () => {
    mockApi({
      "POST /sessions/check-limit": canCreate,
      "POST /auth/request-otp": codeSent,
      "POST /auth/verify-otp": {
        status: 400,
        body: {
          success: false,
          errorType: "code_expired",
          message: "This code has expired. Please request a new one.",
        },
      },
    });
    const { user } = renderApp("/");
    await submitPhone(user);
    await user.type(await screen.findByLabelText(/Verification code/), "123456");
    await user.click(screen.getByRole("button", { name: "Verify Code" }));
    const alert = await screen.findByRole("alert");
    expect(alert).toHaveTextContent("Code expired");
    expect(alert).toHaveTextContent("This code has expired. Please request a new one.");
    expect(alert).not.toHaveTextContent("Something went wrong");
  });

  it("says the code could not be sent when the server fails without a word, and its own words when it has them", async () => {
    const server = mockApi({
      "POST /sessions/check-limit": canCreate,
      // A proxy in front of a dead server: no JSON body.
      "POST /auth/request-otp": { status: 502 },
    });
    const { user } = renderApp("/");
    await submitPhone(user);
    expect(await screen.findByRole("alert")).toHaveTextContent(MESSAGES.OTP_SEND_FAILED);
    server.on("POST /auth/request-otp", {
      status: 503,
      body: {
        success: false,
        message: "The service is temporarily unavailable. Please try again shortly.",
        errorType: "service_unavailable",
      },
    });
    await user.click(screen.getByRole("button", { name: "Send Code" }));
    await waitFor(() =>
      expect(screen.getByRole("alert")).toHaveTextContent(
        "Service unavailableThe service is temporarily unavailable. Please try again shortly.",
      ),
    );
  });

  it("tells a deactivated member so, in the server's words, not as a connection problem", async () => {
    const server = mockApi({
      "POST /sessions/check-limit": canCreate,
      "POST /auth/request-otp": {
        status: 403,
        body: {
          success: false,
          message: "Your account has been deactivated. Please contact your administrator.",
          errorType: "account_inactive",
        },
      },
    });
    const { user } = renderApp("/");
    await submitPhone(user);
    const alert = await screen.findByRole("alert");
    expect(alert).toHaveTextContent("Account deactivated");
    expect(alert).toHaveTextContent("Your account has been deactivated. Please contact your administrator.");
    expect(alert).not.toHaveTextContent("Connection problem");
    expect(alert).toHaveAttribute("data-error-type", "account_inactive");
    // Handled here: not the general 'not authorized' dialog of a signed-in page.
    expect(screen.queryByRole("dialog")).not.toBeInTheDocument();
    expect(server.callsTo("POST /auth/request-otp")).toHaveLength(1);
  });
});

describe("login for an account waiting for an administrator", () => {
  it("shows the server's explanation in blue, without the general 403 dialog", async () => {
    mockApi({
      "POST /sessions/check-limit": canCreate,
      "POST /auth/request-otp": {
        status: 403,
        body: {
          success: false,
          errorType: "account_not_activated",
          message: "Your account is waiting for an administrator to activate it.",
        },
      },
    });
    const { user } = renderApp("/");
    await submitPhone(user);
    const alert = await screen.findByRole("alert");
    expect(alert).toHaveTextContent("waiting for an administrator");
    expect(alert).toHaveClass("kit-notice--info");
    expect(screen.queryByRole("alertdialog")).not.toBeInTheDocument();
  });
});

describe("login with a phone the server cannot read", () => {
  it("shows the server's field message under the phone field", async () => {
    mockApi({
      "POST /sessions/check-limit": canCreate,
      "POST /auth/request-otp": {
        status: 400,
        body: {
          success: false,
          errorType: "validation_error",
          message: "Invalid body.phone: Please enter a valid phone number",
          fields: [{ field: "body.phone", message: "Please enter a valid phone number" }],
        },
      },
    });
    const { user } = renderApp("/");
    await submitPhone(user, "12");
    expect(await screen.findByText("Please enter a valid phone number")).toBeInTheDocument();
    expect(screen.getByLabelText(/Phone number/)).toHaveAttribute("aria-invalid", "true");
  });
});
