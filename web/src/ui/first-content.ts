// What the page does not need for its first content (the feed's first cards) waits until that content is
// on screen: the live channel's handshake, the cards' answer counts, the feedback badge's count, the
// server's environment and the push subscription's resync. On a slow phone each of them is a request
// and a main-thread task in front of the first cards otherwise (issue 31). No React here: the API
// layer waits on the promise, so nothing renders again when it resolves.

/** Nothing waits longer than this for the first content (a screen that never marks it, e.g. the map). */
export const FIRST_CONTENT_MAX_WAIT_MS = 3_000;

let resolveShown: () => void = () => undefined;
let marked = false;

/** Resolves once the first content has been painted, or FIRST_CONTENT_MAX_WAIT_MS after the page started. */
export const firstContentShown: Promise<void> = new Promise<void>((resolve) => {
  resolveShown = resolve;
});

setTimeout(() => resolveShown(), FIRST_CONTENT_MAX_WAIT_MS);

/**
 * The page's first content has been committed (the feed's first page, its empty or error notice, or a
 * screen shown instead of the feed): what waits for it starts once the browser has painted it. A hidden
 * page paints nothing until it is shown, so it does not wait.
 */
export function markFirstContentShown(): void {
  if (marked) return;
  marked = true;
  if (document.hidden || typeof requestAnimationFrame !== "function") {
    resolveShown();
    return;
  }
  // A frame callback runs before that frame's paint; one in the next frame, once it is on screen.
  requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(resolveShown, 0)));
}

/** Runs `task` in a task of its own once the first content is on screen; the returned function cancels it. */
export function afterFirstContent(task: () => void): () => void {
  let cancelled = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  void firstContentShown.then(() => {
    if (!cancelled) timer = setTimeout(task, 0);
  });
  return () => {
    cancelled = true;
    clearTimeout(timer);
  };
}
