import { useInfiniteQuery } from "@tanstack/react-query";
import { admitLiveAlert, displayText, typePresentation, type UnitViewScope } from "@turnout/domain";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import type { Alert } from "../../api/alerts";
import { alertsApi, type FeedFilters, type FeedOptions } from "./alerts-api";
import { readCachedFeed, writeCachedFeed } from "./feed-cache";
import {
  alertIdsOf,
  cardForLiveAlert,
  type FeedItem,
  feedKey,
  mergeFeedItems,
  missedItems,
  placeLiveItems,
  sortNewestFirst,
  toFeedItem,
} from "./feed-items";
import { feedQueryOptions } from "./queries";

/** How long a card that arrived live stays highlighted. */
export const LIVE_HIGHLIGHT_MS = 4_000;

const NO_ITEMS: FeedItem[] = [];

/**
 * Cards read to catch up once the live channel has joined (on opening, after a change of view): only
 * what was paged in the moment between reading the feed and joining can be missing, so a short page
 * does, and every screen opening does not cost the server a second full page.
 */
const JOIN_CATCH_UP_CARDS = 10;

/** Why the feed reads its first page again: the channel joined, rejoined after a reconnect, or a burst. */
export type CatchUpCause = "join" | "reconnect" | "burst";

/** The offline copy is written this long after the feed last changed. */
const CACHE_WRITE_DELAY_MS = 500;

function hasFilters(filters: FeedFilters): boolean {
  return (
    filters.search.trim() !== "" ||
    filters.type !== null ||
    filters.area !== null ||
    filters.agency !== null ||
    filters.view !== "units" ||
    filters.showMachine
  );
}

function announcementFor(alert: Alert): string {
  const parts = [`New ${typePresentation(alert.type).label} alert`];
  if (alert.agency_name) parts.push(`from ${alert.agency_name}`);
  if (alert.area) parts.push(`in ${alert.area}`);
  return `${parts.join(" ")}: ${displayText(alert.message)}`;
}

/**
 * The feed's cards: the pages loaded from the server (50 cards each, a job once however many pages
 * it spans) with the cards that arrived live or were caught up after a reconnect placed by time. Live alerts are
 * admitted by the SPEC 5 rule, and only when they belong to `unitView` (issue 26: the member's units
 * and the agencies they read whole in the unit view, their agencies in the agencies view; null until
 * known, when the server's rooms alone decide). The leading cards of the unfiltered feed are kept for offline use, except in admin
 * context (every agency's traffic is not the member's offline copy).
 */
export function useAlertFeed(
  userId: number | string,
  filters: FeedFilters,
  options: FeedOptions & {
    unitView?: UnitViewScope | null;
    /** Called with the pages the feed just admitted live or by catching up (the alarm listens here). */
    onAdmitted?: (alerts: Alert[]) => void;
  } = {},
) {
  const adminContext = options.adminContext === true;
  const unitView = adminContext ? null : (options.unitView ?? null);
  const query = useInfiniteQuery(feedQueryOptions(userId, filters, { adminContext }));
  const filtersKey = JSON.stringify(filters);
  const [live, setLive] = useState<{ filtersKey: string; items: FeedItem[] }>({ filtersKey, items: [] });
  const [highlighted, setHighlighted] = useState<ReadonlySet<string>>(() => new Set());
  const [announcement, setAnnouncement] = useState("");
  /** Cards that arrived live (or by catching up) since the feed was shown; only ever grows. */
  const [arrivals, setArrivals] = useState(0);
  const [lastFreshAt, setLastFreshAt] = useState<number | null>(null);
  const timers = useRef(new Set<number>());
  // A catch-up asked for while the first page was on its way runs once it has come.
  const catchUpWhenLoaded = useRef<CatchUpCause | null>(null);

  const liveItems = live.filtersKey === filtersKey ? live.items : NO_ITEMS;
  const pageItems = useMemo(
    () => query.data?.pages.flatMap((page) => page.data.map(toFeedItem)) ?? NO_ITEMS,
    [query.data],
  );
  const morePages = query.hasNextPage;
  const items = useMemo(
    () => placeLiveItems(liveItems, pageItems, morePages),
    [liveItems, pageItems, morePages],
  );
  // Ids admitted since the last render are added here at once, so a second copy of the same
  // alert (paged to two of the user's agencies) arriving in the same tick is still a duplicate.
  const knownIds = useMemo(() => alertIdsOf(items), [items]);

  const { onAdmitted } = options;
  const latest = useRef({
    filters,
    filtersKey,
    knownIds,
    pageItems,
    query,
    adminContext,
    unitView,
    onAdmitted,
  });
  latest.current = { filters, filtersKey, knownIds, pageItems, query, adminContext, unitView, onAdmitted };

  useEffect(() => {
    if (query.dataUpdatedAt > 0) setLastFreshAt((at) => Math.max(at ?? 0, query.dataUpdatedAt));
  }, [query.dataUpdatedAt]);

  useEffect(() => {
    const pending = timers.current;
    return () => {
      for (const timer of pending) window.clearTimeout(timer);
      pending.clear();
    };
  }, []);

  const highlight = useCallback((keys: string[]) => {
    if (keys.length === 0) return;
    setHighlighted((current) => new Set([...current, ...keys]));
    const timer = window.setTimeout(() => {
      timers.current.delete(timer);
      setHighlighted((current) => {
        const next = new Set(current);
        for (const key of keys) next.delete(key);
        return next;
      });
    }, LIVE_HIGHLIGHT_MS);
    timers.current.add(timer);
  }, []);

  const addLiveCards = useCallback((forKey: string, cards: FeedItem[]) => {
    setLive((previous) => {
      const kept = previous.filtersKey === forKey ? previous.items : NO_ITEMS;
      return { filtersKey: forKey, items: sortNewestFirst(mergeFeedItems(cards, kept)) };
    });
  }, []);

  /**
   * A `new-alert` from the live channel, if it matches the filters and is new: placed by its time (the
   * top for a page just paged; a replayed old one at its place, or with the next page if older).
   */
  const receiveLiveAlert = useCallback(
    (alert: Alert) => {
      const {
        filters: current,
        filtersKey: forKey,
        knownIds: ids,
        adminContext: admin,
        unitView: view,
      } = latest.current;
      const admitted = admitLiveAlert(
        alert,
        {
          agencyId: current.agency?.id,
          type: current.type,
          area: current.area,
          search: current.search,
          view,
          // Admin context shows every page, machine pages included (as the server's search does).
          showMachine: current.showMachine || admin,
        },
        ids,
      );
      if (!admitted) return;
      ids.add(alert.id);
      const key = feedKey(alert.group_id, alert.id);
      setLive((previous) => {
        const kept = previous.filtersKey === forKey ? previous.items : NO_ITEMS;
        const existing =
          kept.find((item) => item.key === key) ?? latest.current.pageItems.find((item) => item.key === key);
        const card = cardForLiveAlert(alert, existing);
        return { filtersKey: forKey, items: sortNewestFirst(mergeFeedItems([card], kept)) };
      });
      setLastFreshAt(Date.now());
      highlight([key]);
      setAnnouncement(announcementFor(alert));
      setArrivals((count) => count + 1);
      latest.current.onAdmitted?.([alert]);
    },
    [highlight],
  );

  /**
   * Reads the first page again and adds whatever is not on screen: after the live channel joined
   * (`join`: what was paged between reading the feed and joining its rooms; `reconnect`: what was paged
   * while the channel was down) or after a burst the server sent as one `alerts:refresh`. When none of
   * that page was on screen, more may lie between it and the cards shown, so the feed is read again
   * from the top instead. Before the feed's first page has come, the catch-up waits for it.
   */
  const catchUp = useCallback(
    async (cause: CatchUpCause = "reconnect") => {
      const { filters: current, filtersKey: forKey, query: feed } = latest.current;
      if (!feed.data) {
        // A join's short read gives way to a reconnect's or a burst's whole page.
        if (feed.isFetching)
          catchUpWhenLoaded.current = cause === "join" ? (catchUpWhenLoaded.current ?? cause) : cause;
        else void feed.refetch();
        return;
      }
      try {
        const page = await alertsApi.searchAlerts(current, null, undefined, {
          adminContext: latest.current.adminContext,
          limit: cause === "join" ? JOIN_CATCH_UP_CARDS : undefined,
        });
        if (latest.current.filtersKey !== forKey) return;
        setLastFreshAt(Date.now());
        const missed = missedItems(page.data, latest.current.knownIds);
        if (missed.length === 0) return;
        const arrived = missed.flatMap((item) =>
          item.group.messages.filter((message) => !latest.current.knownIds.has(message.id)),
        );
        const gap = missed.length === page.data.length && page.pagination.has_more;
        if (gap) {
          setLive({ filtersKey: forKey, items: [] });
          await latest.current.query.refetch();
        }
        for (const item of missed)
          for (const message of item.group.messages) latest.current.knownIds.add(message.id);
        if (!gap) addLiveCards(forKey, missed);
        setArrivals((count) => count + missed.length);
        latest.current.onAdmitted?.(arrived);
        highlight(missed.map((item) => item.key));
        setAnnouncement(
          missed.length === 1
            ? announcementFor(missed[0]!.newest)
            : `${missed.length}${gap ? "+" : ""} new alerts${cause === "reconnect" ? " while reconnecting" : ""}`,
        );
      } catch {
        // Still unreachable: the next reconnect tries again.
      }
    },
    [addLiveCards, highlight],
  );
  useEffect(() => {
    const cause = catchUpWhenLoaded.current;
    if (!query.data || cause === null) return;
    catchUpWhenLoaded.current = null;
    void catchUp(cause);
  }, [query.data, catchUp]);

  /** Forget the cards that arrived live (the feed starts again from the server's first page). */
  const resetLive = useCallback(() => setLive({ filtersKey: latest.current.filtersKey, items: [] }), []);

  const unfiltered = !adminContext && !hasFilters(filters);
  // The offline copy is written once the feed has been still for a moment, not per live alert: a
  // burst would otherwise serialise the leading cards into localStorage for every card it brings
  // (issue 31). A copy still due is written when the page is hidden or the feed goes away.
  const pendingWrite = useRef<(() => void) | null>(null);
  useEffect(() => {
    if (!unfiltered || !query.isSuccess || items.length === 0 || lastFreshAt === null) return;
    const write = () => {
      if (pendingWrite.current !== write) return;
      pendingWrite.current = null;
      writeCachedFeed(userId, items, lastFreshAt);
    };
    pendingWrite.current = write;
    const timer = window.setTimeout(write, CACHE_WRITE_DELAY_MS);
    window.addEventListener("pagehide", write);
    return () => {
      // A newer copy replaces this one; on unmount the effect below writes it.
      window.clearTimeout(timer);
      window.removeEventListener("pagehide", write);
    };
  }, [unfiltered, query.isSuccess, items, userId, lastFreshAt]);
  useEffect(() => () => pendingWrite.current?.(), []);

  const cached = useMemo(() => (unfiltered ? readCachedFeed(userId) : null), [unfiltered, userId]);

  return {
    query,
    items,
    highlighted,
    announcement,
    arrivals,
    /** When the cards on screen were last known to be current. */
    lastFreshAt,
    /** The offline copy of the unfiltered feed (only offered when nothing could be loaded). */
    cached,
    receiveLiveAlert,
    catchUp,
    resetLive,
  };
}
