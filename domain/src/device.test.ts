import { describe, expect, it } from "vitest";
import {
  canOpenAdminConsole,
  classifyDevice,
  describeBrowser,
  describeOs,
  isIosSafari,
  isMobileUserAgent,
  MOBILE_UA_TOKENS,
} from "./device.js";

const UA = {
  iphoneSafari:
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1",
  iphoneChrome:
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/126.0.6478.54 Mobile/15E148 Safari/604.1",
  iphoneHomeScreen:
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148",
  ipad: "Mozilla/5.0 (iPad; CPU OS 16_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.6 Mobile/15E148 Safari/604.1",
  androidPhone:
    "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36",
  androidTablet:
    "Mozilla/5.0 (Linux; Android 13; SM-X710) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36",
  samsung:
    "Mozilla/5.0 (Linux; Android 14; SM-S921B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/25.0 Chrome/121.0.0.0 Mobile Safari/537.36",
  windowsChrome:
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36",
  windowsEdge:
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36 Edg/126.0.2592.56",
  macSafari:
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15",
  linuxFirefox: "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0",
  operaMini:
    "Opera/9.80 (J2ME/MIDP; Opera Mini/9.80 (S60; SymbOS; Opera Mobi/23.348; U; en) Presto/2.5.25 Version/10.54",
};

describe("isMobileUserAgent", () => {
  it("finds every listed token, ignoring case", () => {
    for (const token of MOBILE_UA_TOKENS) {
      expect(isMobileUserAgent(`Mozilla/5.0 (${token.toUpperCase()}) Test`)).toBe(true);
    }
  });

  it("lists the spec's ten tokens", () => {
    expect(MOBILE_UA_TOKENS).toHaveLength(10);
  });

  it("treats desktop browsers as not mobile", () => {
    expect(isMobileUserAgent(UA.windowsChrome)).toBe(false);
    expect(isMobileUserAgent(UA.macSafari)).toBe(false);
    expect(isMobileUserAgent(UA.linuxFirefox)).toBe(false);
    expect(isMobileUserAgent("")).toBe(false);
  });
});

describe("classifyDevice", () => {
  it("calls iPads and Android devices without 'mobile' tablets", () => {
    expect(classifyDevice(UA.ipad)).toBe("Tablet");
    expect(classifyDevice(UA.androidTablet)).toBe("Tablet");
    expect(classifyDevice("Mozilla/5.0 (Tablet; rv:26.0) Gecko/26.0 Firefox/26.0")).toBe("Tablet");
  });

  it("calls phones mobile", () => {
    expect(classifyDevice(UA.iphoneSafari)).toBe("Mobile");
    expect(classifyDevice(UA.androidPhone)).toBe("Mobile");
    expect(classifyDevice(UA.operaMini)).toBe("Mobile");
  });

  it("calls everything else desktop", () => {
    expect(classifyDevice(UA.windowsChrome)).toBe("Desktop");
    expect(classifyDevice(UA.macSafari, { width: 1512, height: 982 })).toBe("Desktop");
  });

  it("calls a Macintosh with a portrait screen an iPad", () => {
    expect(classifyDevice(UA.macSafari, { width: 820, height: 1180 })).toBe("Tablet");
  });
});

describe("canOpenAdminConsole", () => {
  it("opens for admins on desktop", () => {
    expect(canOpenAdminConsole({ is_admin: true }, UA.windowsChrome)).toBe(true);
  });

  it("never opens on a mobile user agent", () => {
    expect(canOpenAdminConsole({ is_admin: true }, UA.iphoneSafari)).toBe(false);
    expect(canOpenAdminConsole({ is_admin: true }, UA.ipad)).toBe(false);
  });

  it("never opens for non-admins or no user", () => {
    expect(canOpenAdminConsole({ is_admin: false }, UA.windowsChrome)).toBe(false);
    expect(canOpenAdminConsole({}, UA.windowsChrome)).toBe(false);
    expect(canOpenAdminConsole(null, UA.windowsChrome)).toBe(false);
  });
});

describe("isIosSafari", () => {
  it("is true for Safari and the home-screen app on iPhone and iPad", () => {
    expect(isIosSafari(UA.iphoneSafari)).toBe(true);
    expect(isIosSafari(UA.iphoneHomeScreen)).toBe(true);
    expect(isIosSafari(UA.ipad)).toBe(true);
  });

  it("is false for other iOS browsers and other systems", () => {
    expect(isIosSafari(UA.iphoneChrome)).toBe(false);
    expect(isIosSafari(UA.macSafari)).toBe(false);
    expect(isIosSafari(UA.androidPhone)).toBe(false);
  });
});

describe("describeBrowser and describeOs", () => {
  it("names common browsers", () => {
    expect(describeBrowser(UA.windowsChrome)).toBe("Chrome");
    expect(describeBrowser(UA.iphoneChrome)).toBe("Chrome");
    expect(describeBrowser(UA.windowsEdge)).toBe("Edge");
    expect(describeBrowser(UA.macSafari)).toBe("Safari");
    expect(describeBrowser(UA.iphoneHomeScreen)).toBe("Safari");
    expect(describeBrowser(UA.linuxFirefox)).toBe("Firefox");
    expect(describeBrowser(UA.samsung)).toBe("Samsung Internet");
    expect(describeBrowser(UA.operaMini)).toBe("Other");
    expect(describeBrowser("")).toBe("Other");
  });

  it("names common operating systems", () => {
    expect(describeOs(UA.iphoneSafari)).toBe("iOS");
    expect(describeOs(UA.ipad)).toBe("iOS");
    expect(describeOs(UA.androidPhone)).toBe("Android");
    expect(describeOs(UA.windowsChrome)).toBe("Windows");
    expect(describeOs(UA.macSafari)).toBe("macOS");
    expect(describeOs(UA.linuxFirefox)).toBe("Linux");
    expect(describeOs("")).toBe("Other");
  });
});
