import { describe, expect, it } from "vitest";
import {
  classifyMultimonLine,
  FlexFragmentJoiner,
  normaliseCapcode,
  type ParsedPage,
  parseMultimonLine,
} from "./multimon.js";

const NOW = new Date("2026-11-22T03:04:05.000Z");
const ALERT =
  "@@ALERT F251108123 BRAV2 STRUC1 SHED FIRE 14 EXAMPLE RD SOMEVILLE M 45 C7 (512345) CBRAV [BRAV]";

describe("parseMultimonLine: POCSAG", () => {
  it("reads an alpha page and strips the trailing control escapes", () => {
    const page = parseMultimonLine(
      `POCSAG1200: Address: 1234567  Function: 3  Alpha:   ${ALERT}<ETX><EOT><NUL>`,
      NOW,
    );
    expect(page).toEqual({
      capcode: "1234567",
      capcodes: ["1234567"],
      message: ALERT,
      protocol: "POCSAG1200",
      timestamp: NOW,
    });
  });

  it("zero-pads a short, space-padded address to 7 digits", () => {
    const page = parseMultimonLine(
      "POCSAG512: Address:   12345  Function: 0  Alpha:   QD TEST PAGE<NUL><NUL>",
      NOW,
    );
    expect(page?.capcode).toBe("0012345");
    expect(page?.message).toBe("QD TEST PAGE");
    expect(page?.protocol).toBe("POCSAG512");
  });

  it("reads numeric pages and POCSAG2400", () => {
    const page = parseMultimonLine("POCSAG2400: Address:  133703  Function: 0  Numeric: 0412 555 123  ", NOW);
    expect(page).toMatchObject({ capcode: "0133703", message: "0412 555 123", protocol: "POCSAG2400" });
  });

  it("trims trailing whitespace and turns embedded line breaks into one space", () => {
    const page = parseMultimonLine(
      "POCSAG1200: Address: 1622020  Function: 3  Alpha:   Hb LINE ONE<CR><LF>LINE TWO   ",
      NOW,
    );
    expect(page?.message).toBe("Hb LINE ONE LINE TWO");
  });

  it("maps the German-charset brackets back to [ and ]", () => {
    const page = parseMultimonLine(
      "POCSAG1200: Address: 1234567  Function: 3  Alpha:   @@ALERT ÄBRAVÜ<NUL>",
      NOW,
    );
    expect(page?.message).toBe("@@ALERT [BRAV]");
  });

  it("tolerates verbose output (certainty, lost sync)", () => {
    const page = parseMultimonLine(
      "POCSAG1200: Address: 1234567  Function: 3  Certainty:    42  Alpha:   @@ALERT TEST<LOST SYNC>",
      NOW,
    );
    expect(page?.message).toBe("@@ALERT TEST");
  });

  it("uses multimon-ng's --timestamp prefix (local time) and ignores a --label", () => {
    const page = parseMultimonLine(
      "rx1: 2024-09-23 12:38:00: POCSAG512: Address:  162202  Function: 0  Alpha:   @@E24092310740 SIG2 LOC 122 DAY ST<NUL>",
      NOW,
    );
    expect(page?.capcode).toBe("0162202");
    expect(page?.timestamp).toEqual(new Date(2024, 8, 23, 12, 38, 0));
  });

  it("reads --json POCSAG objects", () => {
    const page = parseMultimonLine(
      '{"demod_name":"POCSAG1200","address":1920312,"function":3,"alpha":"Time Critical Incident<NUL>"}',
      NOW,
    );
    expect(page).toMatchObject({
      capcode: "1920312",
      message: "Time Critical Incident",
      protocol: "POCSAG1200",
    });
  });

  it("skips tone-only pages, empty texts, partial decodes and Skyper decodes", () => {
    expect(classifyMultimonLine("POCSAG1200: Address: 1234567  Function: 0 ", NOW)).toEqual({
      kind: "skip",
      reason: "tone-only",
    });
    expect(parseMultimonLine("POCSAG1200: Address: 1234567  Function: 2 <LOST SYNC>", NOW)).toBeNull();
    expect(
      parseMultimonLine("POCSAG1200: Address: 1234567  Function: 3  Alpha:   <NUL><NUL>", NOW),
    ).toBeNull();
    expect(parseMultimonLine("POCSAG1200: Address:       -  Function: -  Alpha:   garbled", NOW)).toBeNull();
    expect(parseMultimonLine("POCSAG2400: Address: 4512  Function: 3  Skyper:  ABCDEF", NOW)).toBeNull();
    expect(parseMultimonLine('{"demod_name":"POCSAG1200","address":42,"function":0}', NOW)).toBeNull();
  });
});

describe("parseMultimonLine: FLEX", () => {
  it("reads the pipe format of multimon-ng 0.9.3v (flag then phase) with its UTC time", () => {
    const page = parseMultimonLine(
      `FLEX|2026-11-22 03:04:05|1600/2/K/A|08.084|001234567|ALN|${ALERT}`,
      new Date(0),
    );
    expect(page).toEqual({
      capcode: "1234567",
      capcodes: ["1234567"],
      message: ALERT,
      protocol: "FLEX",
      timestamp: NOW,
      fragment: "K",
    });
  });

  it("reads the newer pipe format (phase then flag, 10-digit capcode, escaped line breaks)", () => {
    const page = parseMultimonLine(
      "FLEX|2026-11-22 03:04:05|1600/2/A/K|08.084|0000123456|ALN|@@ALERT LINE ONE\\r\\nLINE TWO ",
      NOW,
    );
    expect(page).toMatchObject({ capcode: "0123456", message: "@@ALERT LINE ONE LINE TWO", fragment: "K" });
  });

  it("keeps the significant digits of long FLEX capcodes", () => {
    expect(
      parseMultimonLine("FLEX|2024-12-08 21:18:16|3200/4/K/D|03.096|4294956915|ALN|A - 16 NORTH", NOW)
        ?.capcode,
    ).toBe("4294956915");
    expect(normaliseCapcode("000000042")).toBe("0000042");
  });

  it("reads numeric pages in both formats", () => {
    expect(
      parseMultimonLine("FLEX|2026-11-22 03:04:05|1600/2/A  |08.084|0001234567|NUM|0412555123", NOW),
    ).toMatchObject({ capcode: "1234567", message: "0412555123" });
    const old = parseMultimonLine("FLEX: 2024-12-08 21:20:10 3200/4/A 04.067 [002064200] NUM 615 ", NOW);
    expect(old).toMatchObject({
      capcode: "2064200",
      message: "615",
      timestamp: new Date("2024-12-08T21:20:10Z"),
    });
    expect(old?.fragment).toBeUndefined();
  });

  it("reads the older space-separated ALN format, with and without fragment flags", () => {
    const withFlag = parseMultimonLine(
      `FLEX: 2018-04-11 10:11:12 1600/2/K/A 08.084 [001234567] ALN ${ALERT}`,
      NOW,
    );
    expect(withFlag).toMatchObject({ capcode: "1234567", message: ALERT, fragment: "K" });
    expect(withFlag?.timestamp).toEqual(new Date("2018-04-11T10:11:12Z"));
    const noFlag = parseMultimonLine(
      `FLEX: 2026-11-22 03:04:05 1600/2/A 08.084 [001234567] ALN ${ALERT}`,
      NOW,
    );
    expect(noFlag).toMatchObject({ capcode: "1234567", message: ALERT });
    expect(noFlag?.fragment).toBeUndefined();
  });

  it("tells fragments from continuations whichever order flag and phase come in", () => {
    const flag = (mode: string) =>
      parseMultimonLine(`FLEX|2026-11-22 03:04:05|${mode}|08.084|001234567|ALN|TEXT`, NOW)?.fragment;
    expect(flag("1600/2/F/A")).toBe("F");
    expect(flag("1600/2/A/F")).toBe("F");
    expect(flag("3200/4/C/A")).toBe("C");
    expect(flag("3200/4/A/C")).toBe("C");
    expect(flag("3200/4/K/C")).toBe("K");
    expect(flag("3200/4/C/K")).toBe("K");
    expect(flag("3200/4/C/C")).toBe("C");
  });

  it("pages every member of a group message, not the group capcode", () => {
    const page = parseMultimonLine(
      "FLEX|2026-11-22 03:04:05|1600/2/K/A|08.084|002029568 001234567 000765432|ALN|@@ALERT GROUP",
      NOW,
    );
    expect(page?.capcodes).toEqual(["1234567", "0765432"]);
    expect(page?.capcode).toBe("1234567");
    const alone = parseMultimonLine(
      "FLEX|2026-11-22 03:04:05|1600/2/K/A|08.084|002029570|ALN|@@ALERT GROUP",
      NOW,
    );
    expect(alone?.capcodes).toEqual(["2029570"]);
  });

  it("keeps a | inside the text", () => {
    expect(
      parseMultimonLine("FLEX|2026-11-22 03:04:05|1600/2/K/A|08.084|001234567|ALN|A | B", NOW)?.message,
    ).toBe("A | B");
  });

  it("skips tone-only, unknown, binary and empty FLEX pages", () => {
    const skipped = [
      "FLEX: 2024-12-08 21:18:46 3200/4/A 04.063 [002064198] TON ",
      "FLEX: 2024-12-08 21:18:16 3200/4/D 03.096 [4294947544] UNK 00136080 001794b2 00193e1c",
      "FLEX|2024-12-08 21:18:16|3200/4/F/D|03.096|002064197|ALN|",
      "FLEX|2026-11-22 03:04:05|1600/2/A  |08.084|0001234567|TON|",
      "FLEX|2026-11-22 03:04:05|1600/2/K/A|08.084|001234567|BIN|0a1b2c",
    ];
    for (const line of skipped) expect(parseMultimonLine(line, NOW), line).toBeNull();
  });

  it("falls back to now when the FLEX time is unreadable", () => {
    expect(parseMultimonLine("FLEX|not a time|1600/2/K/A|08.084|001234567|ALN|TEXT", NOW)?.timestamp).toEqual(
      NOW,
    );
  });
});

describe("parseMultimonLine: junk", () => {
  it("returns null for blank lines, banners and noise", () => {
    const junk = [
      "",
      "   ",
      "multimon-ng 1.3.1",
      "  (C) 1996/1997 by Tom Sailer HB9JNX/AE4WA",
      "Available demodulators: POCSAG512 POCSAG1200 POCSAG2400 FLEX FLEX_NEXT EAS UFSK1200",
      "Enabled demodulators: POCSAG512 POCSAG1200 POCSAG2400 FLEX",
      "EAS:  ZCZC-WXR-RWT-020103",
      "{not json",
      '{"demod_name":"DTMF","digit":"5"}',
      "FLEX: Sync Code not found, defaulting to 1600bps 2FSK",
    ];
    for (const line of junk) expect(parseMultimonLine(line, NOW), JSON.stringify(line)).toBeNull();
  });

  it("flags decoder-looking lines it cannot read as unrecognised", () => {
    expect(classifyMultimonLine("POCSAG1200: Alpha: old split format", NOW)).toEqual({
      kind: "skip",
      reason: "unrecognised",
    });
    expect(classifyMultimonLine("Enabled demodulators: FLEX", NOW)).toEqual({
      kind: "skip",
      reason: "not-a-page",
    });
  });
});

describe("FlexFragmentJoiner", () => {
  function fakeTimers() {
    const due = new Map<number, () => void>();
    let next = 0;
    return {
      timers: {
        setTimeout: (fn: () => void) => {
          next += 1;
          due.set(next, fn);
          return next;
        },
        clearTimeout: (h: unknown) => {
          due.delete(h as number);
        },
      },
      fireAll: () => {
        for (const [h, fn] of [...due]) {
          due.delete(h);
          fn();
        }
      },
    };
  }
  const line = (mode: string, capcode: string, text: string) =>
    parseMultimonLine(`FLEX|2026-11-22 03:04:05|${mode}|08.084|${capcode}|ALN|${text}`, NOW) as ParsedPage;

  it("joins a fragment with its continuation, keeping the space between words", () => {
    const out: ParsedPage[] = [];
    const { timers } = fakeTimers();
    const joiner = new FlexFragmentJoiner((p) => out.push(p), 4000, timers);
    joiner.push(line("1600/2/F/A", "001234567", "@@ALERT F251108123 STRUC1 "));
    expect(out).toHaveLength(0);
    joiner.push(line("1600/2/C/A", "001234567", "SHED FIRE 14 EXAMPLE RD"));
    expect(out.map((p) => p.message)).toEqual(["@@ALERT F251108123 STRUC1 SHED FIRE 14 EXAMPLE RD"]);
    expect(out[0]?.fragment).toBe("K");
  });

  it("never drops a fragment: it is released alone after the wait, on flush, or before another page", () => {
    const out: ParsedPage[] = [];
    const t = fakeTimers();
    const joiner = new FlexFragmentJoiner((p) => out.push(p), 4000, t.timers);
    joiner.push(line("1600/2/F/A", "001111111", "FIRST HALF"));
    t.fireAll();
    joiner.push(line("1600/2/F/A", "002222222", "HELD"));
    joiner.push(line("1600/2/K/A", "002222222", "UNRELATED"));
    joiner.push(line("1600/2/F/A", "003333333", "AT SHUTDOWN"));
    joiner.flushAll();
    joiner.push(line("1600/2/C/A", "004444444", "ORPHAN CONTINUATION"));
    expect(out.map((p) => p.message)).toEqual([
      "FIRST HALF",
      "HELD",
      "UNRELATED",
      "AT SHUTDOWN",
      "ORPHAN CONTINUATION",
    ]);
    expect(joiner.heldCount).toBe(0);
  });

  it("passes POCSAG and complete FLEX pages straight through", () => {
    const out: ParsedPage[] = [];
    const joiner = new FlexFragmentJoiner((p) => out.push(p));
    joiner.push(
      parseMultimonLine("POCSAG1200: Address: 1234567  Function: 3  Alpha:   ONE", NOW) as ParsedPage,
    );
    joiner.push(line("1600/2/K/A", "001234567", "TWO"));
    expect(out.map((p) => p.message)).toEqual(["ONE", "TWO"]);
  });
});
