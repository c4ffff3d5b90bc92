import { useEffect, useRef, useState } from "react";

/** Within this many pixels of the top, the newest cards are in view. */
const NEAR_TOP_PX = 120;

/**
 * A reader further down the list does not see a card arrive on top: counts the arrivals (the feed's
 * running `arrivals` count) they have not scrolled up to, for a button that takes them there.
 */
export function useUnseenArrivals(arrivals: number) {
  const [unseenArrivals, setUnseenArrivals] = useState(0);
  const seenArrivals = useRef(arrivals);
  useEffect(() => {
    const added = arrivals - seenArrivals.current;
    seenArrivals.current = arrivals;
    if (added > 0 && window.scrollY > NEAR_TOP_PX) setUnseenArrivals((count) => count + added);
  }, [arrivals]);
  useEffect(() => {
    if (unseenArrivals === 0) return;
    const handleScroll = () => {
      if (window.scrollY <= NEAR_TOP_PX) setUnseenArrivals(0);
    };
    window.addEventListener("scroll", handleScroll, { passive: true });
    return () => window.removeEventListener("scroll", handleScroll);
  }, [unseenArrivals]);
  const handleShowNewest = () => {
    setUnseenArrivals(0);
    window.scrollTo({ top: 0 });
  };
  return { unseenArrivals, handleShowNewest };
}
