import { describe, expect, it } from "vitest";
import { REPLACEMENT_CHARACTER, storablePagerText } from "./storable-text.js";

describe("storablePagerText", () => {
  it("removes NUL wherever it is", () => {
    expect(storablePagerText("\u0000@@ALERT F251108123\u0000 STRUC1\u0000")).toBe(
      "@@ALERT F251108123 STRUC1",
    );
  });

  it("removes bell, escape, DEL and the other invisible controls, keeping tab, line feed and carriage return", () => {
    expect(storablePagerText("SHED\u0007 FIRE\u001b[31m\u007f 1\u0001\u001f")).toBe("SHED FIRE[31m 1");
    expect(storablePagerText("LINE 1\r\nLINE 2\tCOL")).toBe("LINE 1\r\nLINE 2\tCOL");
  });

  it("replaces an unpaired high or low surrogate with U+FFFD", () => {
    expect(storablePagerText("A\uD800B")).toBe(`A${REPLACEMENT_CHARACTER}B`);
    expect(storablePagerText("A\uDC00B")).toBe(`A${REPLACEMENT_CHARACTER}B`);
    expect(storablePagerText("END\uD83D")).toBe(`END${REPLACEMENT_CHARACTER}`);
    expect(storablePagerText("\uDE92\uD83D")).toBe(`${REPLACEMENT_CHARACTER}${REPLACEMENT_CHARACTER}`);
  });

  it("keeps surrogate pairs, accents and other scripts as they are", () => {
    const text = "🚒 FIRE at Café 東京 — ÜBUNG";
    expect(storablePagerText(text)).toBe(text);
  });

  it("gives well-formed text whatever it is given", () => {
    const out = storablePagerText("\uD800\u0000x\uDFFF\u0007y\uD83D\uDE92");
    expect(out).toBe(`${REPLACEMENT_CHARACTER}x${REPLACEMENT_CHARACTER}y🚒`);
    // encodeURIComponent throws on a lone surrogate.
    expect(() => encodeURIComponent(out)).not.toThrow();
    expect(out.includes("\u0000")).toBe(false);
  });
});
