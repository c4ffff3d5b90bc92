import { type RefObject, useEffect, useRef } from "react";

/**
 * Moves focus to the heading each time `view` changes (not on the first render), so keyboard and
 * screen-reader users start at the top of the new view instead of on a button that no longer
 * exists. Returns the ref to put on the view's heading.
 */
export function useHeadingFocus(view: unknown): RefObject<HTMLHeadingElement | null> {
  const headingRef = useRef<HTMLHeadingElement>(null);
  const firstRender = useRef(true);
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs on each change of view
  useEffect(() => {
    if (firstRender.current) {
      firstRender.current = false;
      return;
    }
    headingRef.current?.focus();
  }, [view]);
  return headingRef;
}
