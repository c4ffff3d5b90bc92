import { collectDeviceInfo, fallbackHash, resetDeviceIdCache } from "./device";

describe("fallbackHash", () => {
  it("gives 32 hex characters, the same for the same input", () => {
    expect(fallbackHash("abc")).toMatch(/^[0-9a-f]{32}$/);
    expect(fallbackHash("abc")).toBe(fallbackHash("abc"));
  });

  it("differs for inputs that differ only by salt", () => {
    expect(fallbackHash("traits|salt-1")).not.toBe(fallbackHash("traits|salt-2"));
  });
});

describe("collectDeviceInfo's time zone", () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    resetDeviceIdCache();
  });

  it("is Temporal's where the browser has it, without asking Intl", () => {
    vi.stubGlobal("Temporal", { Now: { timeZoneId: () => "Australia/Hobart" } });
    const dateTimeFormat = vi.spyOn(Intl, "DateTimeFormat");
    expect(collectDeviceInfo("device-1").timezone).toBe("Australia/Hobart");
    expect(dateTimeFormat).not.toHaveBeenCalled();
  });

  it("is Intl's where the browser has no Temporal", () => {
    vi.stubGlobal("Temporal", undefined);
    expect(collectDeviceInfo("device-2").timezone).toBe(Intl.DateTimeFormat().resolvedOptions().timeZone);
  });
});
