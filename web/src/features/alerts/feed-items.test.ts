import { makeAlert, makeGroup } from "./alert-fixtures";
import {
  alertIdsOf,
  cardForLiveAlert,
  feedKey,
  leadingItems,
  mergeFeedItems,
  missedItems,
  sortNewestFirst,
  toFeedItem,
} from "./feed-items";

describe("feed items", () => {
  it("keys a job by its group id and a lone alert by its id", () => {
    expect(feedKey(7, 100)).toBe("group:7");
    expect(feedKey(null, 100)).toBe("alert:100");
  });

  it("shows a job once when it turns up on two pages, keeping the first (fresher) copy", () => {
    const a = makeAlert({ id: 1, group_id: 9 });
    const b = makeAlert({ id: 2, group_id: 9 });
    const page1 = [toFeedItem(makeGroup(a, b))];
    const page2 = [toFeedItem(makeGroup(a)), toFeedItem(makeGroup(makeAlert({ id: 3 })))];
    const merged = mergeFeedItems(page1, page2);
    expect(merged.map((item) => item.key)).toEqual(["group:9", "alert:3"]);
    expect(merged[0]?.group.total_count).toBe(2);
    expect([...alertIdsOf(merged)].sort()).toEqual([1, 2, 3]);
  });

  it("adds a live alert to its job's card, oldest first, and leads with the emergency message", () => {
    const first = makeAlert({ id: 10, type: "non-emergency", group_id: 4, job_number: "F1" });
    const existing = toFeedItem(makeGroup(first));
    const update = makeAlert({ id: 11, type: "emergency", group_id: 4, job_number: "F1" });
    const card = cardForLiveAlert(update, existing);
    expect(card.key).toBe("group:4");
    expect(card.group.messages.map((m) => m.id)).toEqual([10, 11]);
    expect(card.group.primary_message.id).toBe(11);
    expect(card.group.is_grouped).toBe(true);
    expect(card.newest.id).toBe(11);
  });

  it("finds the cards of a fresh page that hold alerts the feed has not seen", () => {
    const known = new Set([1, 2]);
    const fresh = [makeGroup(makeAlert({ id: 3 })), makeGroup(makeAlert({ id: 2 }))];
    expect(missedItems(fresh, known).map((item) => item.key)).toEqual(["alert:3"]);
  });

  it("orders cards by their newest message and keeps at most N alerts for offline use", () => {
    const items = [1, 5, 3].map((id) => toFeedItem(makeGroup(makeAlert({ id }))));
    expect(sortNewestFirst(items).map((item) => item.newest.id)).toEqual([5, 3, 1]);
    expect(leadingItems(items, 2)).toHaveLength(2);
    const big = toFeedItem(makeGroup(makeAlert({ id: 20, group_id: 1 }), makeAlert({ id: 21, group_id: 1 })));
    expect(leadingItems([big], 1)).toHaveLength(1);
  });
});
