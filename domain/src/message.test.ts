import { describe, expect, it } from "vitest";
import {
  ALERT_TYPES,
  detectMessageType,
  displayText,
  normalizeAlertType,
  TYPE_PRESENTATION,
  typePresentation,
} from "./message.js";

const TURNOUT =
  "@@ALERT F251108123 BRAV2 STRUC1 SHED FIRE 14 EXAMPLE RD SOMEVILLE /FIRST ST //SECOND AV M 45 C7 (512345) CBRAV CNEIG [BRAV]";

describe("normalizeAlertType", () => {
  it("maps admin and administrative to administrative, ignoring case", () => {
    expect(normalizeAlertType("admin")).toBe("administrative");
    expect(normalizeAlertType("ADMINISTRATIVE")).toBe("administrative");
  });

  it("keeps emergency and non-emergency", () => {
    expect(normalizeAlertType("Emergency")).toBe("emergency");
    expect(normalizeAlertType(" non-emergency ")).toBe("non-emergency");
  });

  it("treats unknown, empty and missing types as standard", () => {
    expect(normalizeAlertType("urgent")).toBe("standard");
    expect(normalizeAlertType("")).toBe("standard");
    expect(normalizeAlertType(null)).toBe("standard");
    expect(normalizeAlertType(undefined)).toBe("standard");
  });
});

describe("detectMessageType", () => {
  it("reads @@ as emergency", () => {
    expect(detectMessageType(TURNOUT)).toBe("emergency");
  });

  it("reads Hb as non-emergency", () => {
    expect(detectMessageType("HbCFA2 NOSTC1 BURN OFF 3 SAMPLE LANE SVNE 8352 D8 F251108124")).toBe(
      "non-emergency",
    );
  });

  it("reads QD as administrative", () => {
    expect(detectMessageType("QD BRAV BRIGADE MEETING TONIGHT 1930")).toBe("administrative");
  });

  it("ignores leading whitespace before the prefix", () => {
    expect(detectMessageType("  \n@@ALERT F251108123")).toBe("emergency");
  });

  it("treats anything else as standard, including a prefix later in the text or in another case", () => {
    expect(detectMessageType("TEST PAGE PLEASE IGNORE")).toBe("standard");
    expect(detectMessageType("ALERT @@ F251108123")).toBe("standard");
    expect(detectMessageType("HB TEST")).toBe("standard");
    expect(detectMessageType("")).toBe("standard");
  });
});

describe("displayText", () => {
  it("strips the prefix and the whitespace after it", () => {
    expect(displayText(TURNOUT)).toBe(TURNOUT.slice(2));
    expect(displayText("Hb  CFA2 NOSTC1")).toBe("CFA2 NOSTC1");
    expect(displayText(" QD BRIGADE MEETING")).toBe("BRIGADE MEETING");
  });

  it("leaves text without a prefix unchanged", () => {
    expect(displayText("TEST PAGE @@")).toBe("TEST PAGE @@");
    expect(displayText("")).toBe("");
  });
});

/** WCAG relative luminance of a #RRGGBB colour. */
function luminance(hex: string): number {
  const channels = [1, 3, 5].map((i) => Number.parseInt(hex.slice(i, i + 2), 16) / 255);
  const [r = 0, g = 0, b = 0] = channels.map((c) =>
    c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4,
  );
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

describe("TYPE_PRESENTATION", () => {
  it("gives each type its key and label", () => {
    expect(ALERT_TYPES.map((t) => [TYPE_PRESENTATION[t].key, TYPE_PRESENTATION[t].label])).toEqual([
      ["EMERGENCY", "Emergency"],
      ["NON-EMERGENCY", "Non-Emergency"],
      ["ADMIN", "Admin"],
      ["STANDARD", "Standard"],
    ]);
  });

  it("uses colours with at least 4.5:1 contrast against white", () => {
    for (const type of ALERT_TYPES) {
      const { color } = TYPE_PRESENTATION[type];
      expect(color).toMatch(/^#[0-9A-F]{6}$/i);
      expect((1 + 0.05) / (luminance(color) + 0.05)).toBeGreaterThanOrEqual(4.5);
    }
  });

  it("gives every type a distinct colour and icon", () => {
    expect(new Set(ALERT_TYPES.map((t) => TYPE_PRESENTATION[t].color)).size).toBe(4);
    expect(new Set(ALERT_TYPES.map((t) => TYPE_PRESENTATION[t].icon)).size).toBe(4);
  });
});

describe("typePresentation", () => {
  it("presents admin as ADMIN", () => {
    expect(typePresentation("admin").key).toBe("ADMIN");
  });

  it("presents unknown or missing types as STANDARD", () => {
    expect(typePresentation("mystery").key).toBe("STANDARD");
    expect(typePresentation(null).key).toBe("STANDARD");
  });
});
