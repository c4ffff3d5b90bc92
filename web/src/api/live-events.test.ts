import { publishLiveEvent, subscribeLiveEvent } from "./live-events";

describe("live events", () => {
  it("hands a published event to each listener until it unsubscribes", () => {
    const first: unknown[] = [];
    const second: unknown[] = [];
    const stopFirst = subscribeLiveEvent("user-alerts:pending", (payload) => first.push(payload));
    const stopSecond = subscribeLiveEvent("user-alerts:pending", (payload) => second.push(payload));

    publishLiveEvent("user-alerts:pending", { pending_alerts: 2 });
    stopFirst();
    publishLiveEvent("user-alerts:pending", { pending_alerts: 5 });
    stopSecond();
    publishLiveEvent("user-alerts:pending", { pending_alerts: 9 });

    expect(first).toEqual([{ pending_alerts: 2 }]);
    expect(second).toEqual([{ pending_alerts: 2 }, { pending_alerts: 5 }]);
  });
});
