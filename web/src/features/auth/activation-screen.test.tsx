import { act, render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { ACTIVATION_REDIRECT_MS, MESSAGES } from "@turnout/domain";
import { mockApi } from "../../testing/mock-api";
import { ActivationScreen } from "./activation-screen";

function renderActivation(options: { fakeTimers?: boolean } = {}) {
  const onBackToLogin = vi.fn();
  const user = userEvent.setup(options.fakeTimers ? { advanceTimers: vi.advanceTimersByTime } : {});
  render(<ActivationScreen phone="+61412345678" onBackToLogin={onBackToLogin} />);
  return { user, onBackToLogin };
}

describe("verify your account", () => {
  it("shows the code field, the expiry note and the hint", () => {
    mockApi();
    renderActivation();
    expect(screen.getByRole("heading", { name: "Verify Your Account" })).toBeInTheDocument();
    const code = screen.getByLabelText(/Activation code/);
    expect(code).toHaveAttribute("inputmode", "numeric");
    expect(code).toHaveAttribute("autocomplete", "one-time-code");
    expect(screen.getByText("Code expires in 10 minutes")).toBeInTheDocument();
    expect(screen.getByText("Didn't receive the code? Check your messages")).toBeInTheDocument();
  });

  it("puts the focus in the activation code field", async () => {
    mockApi();
    renderActivation();
    const code = screen.getByRole("textbox", { name: /Activation code/ });
    await waitFor(() => expect(code).toHaveFocus());
    expect(code).toHaveAccessibleDescription(/activation code sent to \+61412345678/);
  });

  it("takes the activation code out of a whole pasted SMS", async () => {
    mockApi();
    const { user } = renderActivation();
    const code = screen.getByLabelText(/Activation code/);
    await user.click(code);
    await user.paste("Turnout: your activation code is 123456. It expires in 10 minutes.");
    expect(code).toHaveValue("123456");
    expect(screen.getByRole("button", { name: "Verify Account" })).toBeEnabled();
  });

  it("enables 'Verify Account' only at exactly 6 digits", async () => {
    mockApi();
    const { user } = renderActivation();
    const code = screen.getByLabelText(/Activation code/);
    const verify = screen.getByRole("button", { name: "Verify Account" });
    expect(verify).toBeDisabled();
    await user.type(code, "12345");
    expect(verify).toBeDisabled();
    await user.type(code, "6");
    expect(verify).toBeEnabled();
    await user.type(code, "7x");
    expect(code).toHaveValue("123456");
  });

  it("shows 'Account Verified!' and goes to login by itself after 8 seconds", async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true, toFake: ["setTimeout", "clearTimeout", "Date"] });
    const server = mockApi({ "POST /auth/activate": { body: { success: true, message: "Activated" } } });
    const { user, onBackToLogin } = renderActivation({ fakeTimers: true });
    await user.type(screen.getByLabelText(/Activation code/), "123456");
    await user.click(screen.getByRole("button", { name: "Verify Account" }));

    const dialog = await screen.findByRole("dialog", { name: "Account Verified!" });
    expect(dialog).toHaveTextContent(/activated automatically within seconds/);
    expect(dialog).toHaveTextContent(/administrator reviews/);
    expect(dialog).toHaveTextContent(/SMS to \+61412345678/);
    expect(server.callsTo("POST /auth/activate")[0]?.body).toEqual({
      phone: "+61412345678",
      activation_code: "123456",
    });

    act(() => vi.advanceTimersByTime(ACTIVATION_REDIRECT_MS - 100));
    expect(onBackToLogin).not.toHaveBeenCalled();
    act(() => vi.advanceTimersByTime(100));
    expect(onBackToLogin).toHaveBeenCalledOnce();
  });

  it("goes to login at once with 'Go to Login Now'", async () => {
    mockApi({ "POST /auth/activate": { body: { success: true } } });
    const { user, onBackToLogin } = renderActivation();
    await user.type(screen.getByLabelText(/Activation code/), "123456");
    await user.click(screen.getByRole("button", { name: "Verify Account" }));
    const dialog = await screen.findByRole("dialog", { name: "Account Verified!" });
    await user.click(within(dialog).getByRole("button", { name: "Go to Login Now" }));
    expect(onBackToLogin).toHaveBeenCalledOnce();
  });

  it("shows the server's message for a wrong code, else the generic one", async () => {
    const server = mockApi({
      "POST /auth/activate": {
        status: 400,
        body: { success: false, errorType: "invalid_code", message: "Invalid activation code" },
      },
    });
    const { user } = renderActivation();
    await user.type(screen.getByLabelText(/Activation code/), "000000");
    await user.click(screen.getByRole("button", { name: "Verify Account" }));
    const alert = await screen.findByRole("alert");
    expect(alert).toHaveTextContent("Incorrect code");
    expect(alert).toHaveTextContent("Invalid activation code");

    server.on("POST /auth/activate", { status: 500, body: { success: false } });
    await user.click(screen.getByRole("button", { name: "Verify Account" }));
    expect(await screen.findByText(MESSAGES.ACTIVATION_FAILED)).toBeInTheDocument();
  });
});
