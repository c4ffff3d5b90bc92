import { fallbackHash } from "./device";

describe("fallbackHash", () => {
  it("gives 32 hex characters, the same for the same input", () => {
    expect(fallbackHash("abc")).toMatch(/^[0-9a-f]{32}$/);
    expect(fallbackHash("abc")).toBe(fallbackHash("abc"));
  });

  it("differs for inputs that differ only by salt", () => {
    expect(fallbackHash("traits|salt-1")).not.toBe(fallbackHash("traits|salt-2"));
  });
});
