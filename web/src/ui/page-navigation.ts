/**
 * Full-page navigation behind one mutable object, so tests can observe a reload or a hard
 * redirect (jsdom cannot perform either).
 */
export const pageNavigation = {
  reload(): void {
    window.location.reload();
  },
  assign(url: string): void {
    window.location.assign(url);
  },
};
