import { makeAlert, makeGroup } from "./alert-fixtures";
import {
  alertIdsOf,
  cardForLiveAlert,
  feedKey,
  leadingItems,
  mergeFeedItems,
  missedItems,
  placeLiveItems,
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
    const sent_at = new Date(Date.now() - 60_000).toISOString();
    const items = [1, 5, 3].map((id) => toFeedItem(makeGroup(makeAlert({ id, sent_at }))));
    expect(sortNewestFirst(items).map((item) => item.newest.id)).toEqual([5, 3, 1]);
    expect(leadingItems(items, 2)).toHaveLength(2);
    const big = toFeedItem(makeGroup(makeAlert({ id: 20, group_id: 1 }), makeAlert({ id: 21, group_id: 1 })));
    expect(leadingItems([big], 1)).toHaveLength(1);
  });

  it("orders cards by when they were paged, not by id, and a job's messages oldest paged first", () => {
    const at = (minutesAgo: number) => new Date(Date.now() - minutesAgo * 60_000).toISOString();
    const replayed = toFeedItem(makeGroup(makeAlert({ id: 9, sent_at: at(180), received_at: at(0) })));
    const recent = toFeedItem(makeGroup(makeAlert({ id: 4, sent_at: at(2) })));
    expect(sortNewestFirst([replayed, recent]).map((item) => item.newest.id)).toEqual([4, 9]);
    const job = cardForLiveAlert(
      makeAlert({ id: 12, group_id: 3, sent_at: at(30) }),
      toFeedItem(makeGroup(makeAlert({ id: 11, group_id: 3, sent_at: at(10) }))),
    );
    expect(job.group.messages.map((m) => m.id)).toEqual([12, 11]);
    expect(job.newest.id).toBe(11);
  });

  it("places live cards by time among the pages, and leaves older ones to the next page", () => {
    const at = (minutesAgo: number) => new Date(Date.now() - minutesAgo * 60_000).toISOString();
    const card = (id: number, minutesAgo: number) =>
      toFeedItem(makeGroup(makeAlert({ id, sent_at: at(minutesAgo) })));
    const pages = [card(1, 10), card(2, 20), card(3, 30)];
    const live = [card(7, 1), card(8, 15), card(9, 45)];
    expect(placeLiveItems(live, pages, true).map((item) => item.newest.id)).toEqual([7, 1, 8, 2, 3]);
    expect(placeLiveItems(live, pages, false).map((item) => item.newest.id)).toEqual([7, 1, 8, 2, 3, 9]);
    // A card on a page and live shows once, the live copy at its place.
    expect(placeLiveItems([card(2, 20)], pages, true).map((item) => item.key)).toEqual([
      "alert:1",
      "alert:2",
      "alert:3",
    ]);
  });
});
