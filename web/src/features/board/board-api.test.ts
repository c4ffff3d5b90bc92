import { clockDigits, etaSecondsLeft, secondsSince } from "./board-api";

describe("the board's clocks", () => {
  const answered = "2026-11-27T09:00:00.000Z";
  const at = (seconds: number) => Date.parse(answered) + seconds * 1000;

  it("counts a responder's ETA down from their answer, never above the ETA", () => {
    expect(etaSecondsLeft(answered, 10, at(0))).toBe(600);
    // The screen's clock a second behind the server's answer time.
    expect(etaSecondsLeft(answered, 10, at(-1))).toBe(600);
    expect(etaSecondsLeft(answered, 10, at(59))).toBe(541);
    expect(etaSecondsLeft(answered, 5, at(330))).toBe(-30);
    expect(etaSecondsLeft(answered, null, at(0))).toBeNull();
  });

  it("shows the time since a page, never negative", () => {
    expect(secondsSince(answered, at(-3))).toBe(0);
    expect(clockDigits(secondsSince(answered, at(425)))).toBe("7:05");
    expect(clockDigits(3729)).toBe("1:02:09");
  });
});
