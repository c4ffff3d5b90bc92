import { act, render, screen } from "@testing-library/react";
import { CONNECTING_NOTICE_DELAY_MS, LIVE_STATE_TEXT, LiveStatusNotice } from "./feed-notices";

describe("LiveStatusNotice", () => {
  afterEach(() => vi.useRealTimers());

  it("gives the first connection a moment before it says so, then says it until connected", () => {
    vi.useFakeTimers();
    const { rerender } = render(<LiveStatusNotice state="connecting" online onReconnect={() => {}} />);
    expect(screen.queryByText(LIVE_STATE_TEXT.connecting)).not.toBeInTheDocument();
    act(() => vi.advanceTimersByTime(CONNECTING_NOTICE_DELAY_MS - 100));
    expect(screen.queryByText(LIVE_STATE_TEXT.connecting)).not.toBeInTheDocument();
    act(() => vi.advanceTimersByTime(200));
    expect(screen.getByText(LIVE_STATE_TEXT.connecting)).toBeInTheDocument();
    rerender(<LiveStatusNotice state="connected" online onReconnect={() => {}} />);
    expect(screen.queryByText(LIVE_STATE_TEXT.connecting)).not.toBeInTheDocument();
  });

  it("says at once that live updates were lost or failed", () => {
    const { rerender } = render(<LiveStatusNotice state="reconnecting" online onReconnect={() => {}} />);
    expect(screen.getByText(LIVE_STATE_TEXT.reconnecting)).toBeInTheDocument();
    rerender(<LiveStatusNotice state="failed" online onReconnect={() => {}} />);
    expect(screen.getByText(LIVE_STATE_TEXT.failed)).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Reconnect" })).toBeInTheDocument();
  });
});
