import { useWindowVirtualizer } from "@tanstack/react-virtual";
import { INFINITE_SCROLL_DEBOUNCE_MS, INFINITE_SCROLL_THRESHOLD_PX } from "@turnout/domain";
import { startTransition, useEffect, useLayoutEffect, useRef, useState } from "react";
import { Button, Notice, Spinner } from "../../ui/kit/kit";
import { AlertCard, type AlertCardHandlers } from "./alert-card";
import type { FeedItem } from "./feed-items";
import "./feed.css";

/** A first guess of a card's height; each card is measured once it renders. */
const ESTIMATED_CARD_PX = 160;
const CARD_GAP_PX = 12;
/** Scrolled this far past the list's top, the reader is looking at older cards. */
const READING_FURTHER_DOWN_PX = 80;
/**
 * Cards rendered beyond each edge of the screen. The first paint renders one: each card is tens of
 * milliseconds of a slow phone's main thread, so the rest follow just after, in the background.
 */
const OVERSCAN = 5;
const FIRST_PAINT_OVERSCAN = 1;

export interface MorePages {
  hasNextPage: boolean;
  isFetchingNextPage: boolean;
  failed: boolean;
  fetchNextPage: () => void;
}

/**
 * The feed as a window-scrolled virtual list (only the cards near the screen are in the page, so
 * 10,000 loaded alerts scroll like 10). The next page loads when the bottom is within 300 px,
 * checked 50 ms after scrolling settles (SPEC 9); a button does the same for keyboard users.
 */
export function AlertList({
  items,
  now,
  highlighted,
  handlers,
  more,
  showCapcode = false,
}: {
  items: FeedItem[];
  now: number;
  highlighted: ReadonlySet<string>;
  handlers: AlertCardHandlers;
  more: MorePages;
  /** Admin context: each card shows its capcode. */
  showCapcode?: boolean;
}) {
  const listRef = useRef<HTMLDivElement>(null);
  const [scrollMargin, setScrollMargin] = useState(0);

  // Whatever sits above the list (notices, chips) moves it down the page. Measured when the page's
  // layout changes size, never on scroll: reading layout on every scroll frame would cost smoothness.
  useLayoutEffect(() => {
    const element = listRef.current;
    if (!element) return;
    const measure = () => setScrollMargin(Math.round(element.getBoundingClientRect().top + window.scrollY));
    measure();
    if (typeof ResizeObserver === "undefined") return;
    const observer = new ResizeObserver(measure);
    observer.observe(document.body);
    return () => observer.disconnect();
  }, []);

  const [overscan, setOverscan] = useState(FIRST_PAINT_OVERSCAN);
  useEffect(() => {
    startTransition(() => setOverscan(OVERSCAN));
  }, []);

  // Someone reading further down keeps their card in place when new ones arrive on top; someone
  // at the top sees the new card itself (the last known scroll offset decides).
  const lastOffset = useRef(0);
  const readingFurtherDown = lastOffset.current > scrollMargin + READING_FURTHER_DOWN_PX;
  const virtualizer = useWindowVirtualizer({
    count: items.length,
    estimateSize: () => ESTIMATED_CARD_PX + CARD_GAP_PX,
    overscan,
    scrollMargin,
    getItemKey: (index) => items[index]?.key ?? index,
    anchorTo: readingFurtherDown ? "end" : "start",
    // The window's size from the first render: from TanStack's default (0 x 0) the first render holds
    // only the overscan's cards and the rest mount in a second, synchronous render (issue 31).
    initialRect: { width: window.innerWidth, height: window.innerHeight },
  });
  lastOffset.current = virtualizer.scrollOffset ?? 0;

  const moreRef = useRef(more);
  moreRef.current = more;
  // biome-ignore lint/correctness/useExhaustiveDependencies: check the distance again whenever the list grows or a page finishes
  useEffect(() => {
    let timer: number | undefined;
    const check = () => {
      const { hasNextPage, isFetchingNextPage, failed, fetchNextPage } = moreRef.current;
      if (!hasNextPage || isFetchingNextPage || failed) return;
      const distance = document.documentElement.scrollHeight - (window.scrollY + window.innerHeight);
      if (distance <= INFINITE_SCROLL_THRESHOLD_PX) fetchNextPage();
    };
    const schedule = () => {
      window.clearTimeout(timer);
      timer = window.setTimeout(check, INFINITE_SCROLL_DEBOUNCE_MS);
    };
    window.addEventListener("scroll", schedule, { passive: true });
    window.addEventListener("resize", schedule);
    // A short first page may not fill the screen: check without waiting for a scroll.
    schedule();
    return () => {
      window.clearTimeout(timer);
      window.removeEventListener("scroll", schedule);
      window.removeEventListener("resize", schedule);
    };
  }, [items.length, more.hasNextPage, more.isFetchingNextPage]);

  const setSize = more.hasNextPage ? -1 : items.length;

  return (
    <>
      <div
        ref={listRef}
        role="feed"
        aria-label="Alerts"
        aria-busy={more.isFetchingNextPage}
        style={{ position: "relative", width: "100%", height: virtualizer.getTotalSize() }}
      >
        {virtualizer.getVirtualItems().map((row) => {
          const item = items[row.index];
          if (!item) return null;
          return (
            <div
              key={row.key}
              data-index={row.index}
              ref={virtualizer.measureElement}
              style={{
                position: "absolute",
                top: 0,
                left: 0,
                width: "100%",
                paddingBottom: CARD_GAP_PX,
                transform: `translateY(${row.start - scrollMargin}px)`,
              }}
            >
              <AlertCard
                item={item}
                now={now}
                highlighted={highlighted.has(item.key)}
                position={row.index + 1}
                setSize={setSize}
                showCapcode={showCapcode}
                {...handlers}
              />
            </div>
          );
        })}
      </div>
      <div className="feed-list-end">
        {more.isFetchingNextPage ? (
          <div role="status" className="feed-progress">
            <Spinner size={24} />
            <p className="kit-text-body1">Loading more alerts…</p>
          </div>
        ) : more.failed ? (
          <Notice
            severity="error"
            action={
              <Button color="inherit" onClick={more.fetchNextPage}>
                Retry
              </Button>
            }
          >
            Failed to load more alerts
          </Notice>
        ) : more.hasNextPage ? (
          <Button variant="outlined" onClick={more.fetchNextPage}>
            Load more alerts
          </Button>
        ) : items.length > 0 ? (
          <p className="kit-text-body1 kit-text-secondary">No older alerts</p>
        ) : null}
      </div>
    </>
  );
}
