const MINUTE_MS = 60_000;
const DAY_MS = 24 * 60 * MINUTE_MS;

/**
 * How far a receiver's clock may run ahead of the server's before its time is distrusted: receivers
 * are small boxes whose clocks drift between NTP syncs.
 */
export const PAGER_CLOCK_SKEW_MS = 2 * MINUTE_MS;

/**
 * The oldest page a receiver's spool is trusted to replay: a receiver cut off for longer than a week
 * is rebuilt rather than drained, so an older time is a wrong clock (a box that booted at 1970).
 */
export const PAGER_SPOOL_MAX_AGE_MS = 7 * DAY_MS;

/**
 * The time an alert is shown at: the pager's time (`sentAt`, the receiver's timestamp) when it is sane,
 * that is not after `receivedAt` by more than PAGER_CLOCK_SKEW_MS and not older than
 * PAGER_SPOOL_MAX_AGE_MS before it; otherwise (or when missing or invalid) `receivedAt`. A sane time
 * slightly ahead of the receipt is clamped to the receipt: a page cannot arrive before it was sent.
 */
export function pagerTime(sentAt: Date | null | undefined, receivedAt: Date): Date {
  const sent = sentAt?.getTime();
  const received = receivedAt.getTime();
  if (sent === undefined || Number.isNaN(sent)) return receivedAt;
  if (sent > received + PAGER_CLOCK_SKEW_MS || sent < received - PAGER_SPOOL_MAX_AGE_MS) return receivedAt;
  return sent > received ? receivedAt : (sentAt as Date);
}
