import { fireEvent, render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { KeyboardDebugPage } from "./keyboard-debug-page";

function renderPage() {
  const onBackToLogin = vi.fn();
  const user = userEvent.setup();
  render(<KeyboardDebugPage onBackToLogin={onBackToLogin} />);
  const log = () => screen.getByRole("log", { name: "Event Log" });
  return { user, onBackToLogin, log };
}

describe("KeyboardDebugPage", () => {
  it("accepts typing and logs focus and blur with a timestamp", async () => {
    const { user, log } = renderPage();
    const input = screen.getByLabelText("Test input");
    await user.type(input, "hello");
    expect(input).toHaveValue("hello");
    expect(within(log()).getByText(/focus: input "Test input"/)).toBeInTheDocument();
    expect(log()).toHaveTextContent(/\d{2}:\d{2}:\d{2}\.\d{3}/);
    await user.tab();
    expect(within(log()).getByText(/blur: input "Test input"/)).toBeInTheDocument();
  });

  it("counts clicks", async () => {
    const { user } = renderPage();
    expect(screen.getByText("Clicks: 0")).toBeInTheDocument();
    await user.click(screen.getByRole("button", { name: "Count Click" }));
    await user.click(screen.getByRole("button", { name: "Count Click" }));
    expect(screen.getByText("Clicks: 2")).toBeInTheDocument();
  });

  it("prevents the fake submit and logs it", async () => {
    const { user, log } = renderPage();
    await user.type(screen.getByLabelText("Form field"), "abc");
    await user.click(screen.getByRole("button", { name: "Fake Submit" }));
    expect(within(log()).getByText(/fake submit prevented \(value: "abc"\)/)).toBeInTheDocument();
    expect(screen.getByRole("heading", { name: "Keyboard Debug" })).toBeInTheDocument();
  });

  it("logs window and visual-viewport resizes", () => {
    const { log } = renderPage();
    fireEvent(window, new Event("resize"));
    expect(within(log()).getByText(/window resize: \d+x\d+/)).toBeInTheDocument();
  });

  it("clears the log", async () => {
    const { user, log } = renderPage();
    await user.click(screen.getByRole("button", { name: "Count Click" }));
    expect(within(log()).getByText(/counter button clicked/)).toBeInTheDocument();
    await user.click(screen.getByRole("button", { name: "Clear Log" }));
    expect(within(log()).queryByText(/counter button clicked/)).not.toBeInTheDocument();
    expect(within(log()).getByText("No events yet")).toBeInTheDocument();
  });

  it("goes back to login", async () => {
    const { user, onBackToLogin } = renderPage();
    await user.click(screen.getByRole("button", { name: "Back to Login" }));
    expect(onBackToLogin).toHaveBeenCalledOnce();
  });
});
