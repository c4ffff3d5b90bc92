/** True when the app runs from the home screen or as an installed window, not in a browser tab. */
export function isRunningStandalone(win: Window = window): boolean {
  const displayModeStandalone = win.matchMedia?.("(display-mode: standalone)").matches ?? false;
  // iOS Safari reports a home-screen launch only through this non-standard flag.
  const iosStandalone = (win.navigator as Navigator & { standalone?: boolean }).standalone === true;
  return displayModeStandalone || iosStandalone;
}

/** iPhone, iPod and iPad (iPadOS presents itself as a Mac with a touch screen). */
export function isIos(nav: Navigator = navigator): boolean {
  if (/iphone|ipad|ipod/i.test(nav.userAgent)) return true;
  return nav.platform === "MacIntel" && nav.maxTouchPoints > 1;
}
