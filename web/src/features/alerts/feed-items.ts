import { type Alert, alertTime } from "../../api/alerts";
import type { AlertGroup } from "./alerts-api";

/** One card of the feed: a job's group (or a lone alert), with a key stable across pages. */
export interface FeedItem {
  key: string;
  group: AlertGroup;
  /** The newest message of the card (by the time shown, then id): it orders the card and gives its time. */
  newest: Alert;
}

/** A group is one card however many pages it turns up on: keyed by group id, else by alert id. */
export function feedKey(groupId: number | null | undefined, alertId: number): string {
  return groupId === null || groupId === undefined ? `alert:${alertId}` : `group:${groupId}`;
}

/** The feed's order of alerts, as the server pages it: by the time shown (when paged), then by id. */
export function compareAlerts(a: Alert, b: Alert): number {
  return timeOf(a) - timeOf(b) || a.id - b.id;
}

/** Each alert's time shown, parsed once: sorting and placing 1,000 cards compares them many times. */
const parsedTimes = new WeakMap<Alert, number>();
function timeOf(alert: Alert): number {
  let time = parsedTimes.get(alert);
  if (time === undefined) {
    time = Date.parse(alertTime(alert));
    parsedTimes.set(alert, time);
  }
  return time;
}

function newestOf(messages: readonly Alert[]): Alert {
  return messages.reduce((newest, message) => (compareAlerts(message, newest) > 0 ? message : newest));
}

/** Newest card first, as compareAlerts orders their newest messages. */
function compareCards(a: FeedItem, b: FeedItem): number {
  return compareAlerts(b.newest, a.newest);
}

export function toFeedItem(group: AlertGroup): FeedItem {
  return {
    key: feedKey(group.group_id, group.primary_message.id),
    group,
    newest: newestOf(group.messages),
  };
}

/** Concatenates lists of cards, keeping the first card of each key (earlier lists are fresher). */
export function mergeFeedItems(...lists: ReadonlyArray<readonly FeedItem[]>): FeedItem[] {
  const seen = new Set<string>();
  const out: FeedItem[] = [];
  for (const list of lists) {
    for (const item of list) {
      if (seen.has(item.key)) continue;
      seen.add(item.key);
      out.push(item);
    }
  }
  return out;
}

/** Newest card first, by the time shown of each card's newest message (then its id). */
export function sortNewestFirst(items: readonly FeedItem[]): FeedItem[] {
  return [...items].sort(compareCards);
}

/**
 * The feed: the cards that arrived live (newest first) placed by time among the loaded pages, so a page
 * replayed late from a receiver's spool sits at its time rather than on top. A live card older than the
 * last loaded card waits for the next page (which brings it) while there is one (`morePages`); a card
 * in both keeps its live copy (fresher). Page order is kept as the server gave it.
 */
export function placeLiveItems(
  live: readonly FeedItem[],
  pages: readonly FeedItem[],
  morePages: boolean,
): FeedItem[] {
  // A job spanning two pages is one card, where its first page put it.
  const onPages = mergeFeedItems(pages);
  const last = onPages.at(-1);
  const shown = morePages && last ? live.filter((item) => compareCards(item, last) < 0) : live;
  const liveKeys = new Set(shown.map((item) => item.key));
  const loaded = onPages.filter((item) => !liveKeys.has(item.key));
  const out: FeedItem[] = [];
  let i = 0;
  for (const page of loaded) {
    while (i < shown.length && compareCards(shown[i]!, page) <= 0) out.push(shown[i++]!);
    out.push(page);
  }
  while (i < shown.length) out.push(shown[i++]!);
  return out;
}

/** Every alert id on the feed, for the live admission rule. */
export function alertIdsOf(items: readonly FeedItem[]): Set<number> {
  const ids = new Set<number>();
  for (const item of items) for (const message of item.group.messages) ids.add(message.id);
  return ids;
}

/** A job's group as the server builds it: oldest first; the first emergency message leads, else the oldest. */
function groupOf(messages: readonly Alert[], jobNumber: string | null | undefined): AlertGroup {
  const oldestFirst = [...messages].sort(compareAlerts);
  const first = oldestFirst[0]!;
  const primary = oldestFirst.find((message) => message.type === "emergency") ?? first;
  return {
    job_number: jobNumber ?? first.job_number ?? null,
    group_id: first.group_id ?? null,
    messages: oldestFirst,
    primary_message: primary,
    has_emergency: oldestFirst.some((message) => message.type === "emergency"),
    total_count: oldestFirst.length,
    is_grouped: oldestFirst.length > 1,
  };
}

/** The card a live alert makes: its job's card with the alert added, or a card of its own. */
export function cardForLiveAlert(alert: Alert, existing: FeedItem | undefined): FeedItem {
  if (!existing) return toFeedItem(groupOf([alert], alert.job_number));
  const messages = existing.group.messages.some((message) => message.id === alert.id)
    ? existing.group.messages
    : [...existing.group.messages, alert];
  return toFeedItem(groupOf(messages, existing.group.job_number));
}

/** Cards of a freshly fetched first page that hold any alert the feed does not have yet. */
export function missedItems(freshPage: readonly AlertGroup[], knownIds: ReadonlySet<number>): FeedItem[] {
  return freshPage
    .filter((group) => group.messages.some((message) => !knownIds.has(message.id)))
    .map(toFeedItem);
}

/** The leading cards holding at most `maxAlerts` alerts in all (at least one card when there is any). */
export function leadingItems(items: readonly FeedItem[], maxAlerts: number): FeedItem[] {
  const out: FeedItem[] = [];
  let count = 0;
  for (const item of items) {
    count += item.group.messages.length;
    if (count > maxAlerts && out.length > 0) break;
    out.push(item);
  }
  return out;
}
