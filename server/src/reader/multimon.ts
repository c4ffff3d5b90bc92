/*
 * multimon-ng text output -> pager messages.
 *
 * Formats handled, checked against EliasOenal/multimon-ng (pocsag.c, demod_flex.c, unixinput.c) and
 * PagerMon's client/reader.js, plus lines published by people running these decoders:
 *
 * POCSAG (multimon-ng 1.1.x to 1.3.x, demodulators POCSAG512/1200/2400). The address is printed `%7lu`, so
 * it is space-padded when short:
 *   POCSAG1200: Address:  133703  Function: 3  Alpha:   text<EOT><NUL>
 *   POCSAG512: Address: 1234567  Function: 0  Numeric: 0123
 *   POCSAG1200: Address: 1234567  Function: 0            (tone only: not a message)
 * `-v 3` adds `Certainty: n` before the text and `-v 2` appends `<LOST SYNC>`; both are dropped. `Skyper:`
 * and `Alpha (SKYPER):` decodes are ignored. Control characters arrive as escapes (`<NUL>`, `<ETX>`, `<EOT>`,
 * `<CR><LF>`...); builds with the German charset print `[` and `]` as `Ä` and `Ü` (mapped back, as PagerMon
 * does). `--json` POCSAG objects ({"demod_name","address","function","alpha"|"numeric"}) are read too.
 *
 * FLEX, pipe-separated (demod_flex.c 0.9.3v of Jan 2020 and later; ALN only in 0.9.3v, NUM/TON too later):
 *   FLEX|2020-01-28 10:11:12|1600/2/K/A|08.084|001234567|ALN|text        (0.9.3v: flag then phase, %09)
 *   FLEX|2024-05-01 10:11:12|1600/2/A/K|08.084|0001234567|ALN|text       (later: phase then flag, %010,
 *                                                                         \n \r \t escaped in the text)
 *   FLEX|2024-05-01 10:11:12|1600/2/A  |08.084|0001234567|NUM|0123
 *   FLEX|...|002029568 001234567 001234568|ALN|text                      (group page: group + members)
 * FLEX, space-separated (0.8.x to 0.9.2v, and NUM/TON/UNK lines of 0.9.3v):
 *   FLEX: 2018-04-11 10:11:12 1600/2/K/A 08.084 [001234567] ALN text     (K/F/C flags since 0.8.7v)
 *   FLEX: 2017-06-08 10:11:12 1600/2/A 08.084 [001234567] NUM 0123       (GPN = 0.8.0-0.8.2 group ALN)
 * FLEX times are UTC (gmtime). ALN, GPN and NUM are messages; TON, UNK, BIN and empty texts are not.
 * K = complete, F = fragment (a C continuation follows), C = continuation; see FlexFragmentJoiner.
 *
 * Any line may carry multimon-ng's `--label` and `--timestamp` prefixes (`label: 2024-09-23 12:38:00: `,
 * local time); that time is used for POCSAG, FLEX prefers its own.
 */

/** One decoded page. `capcode` is the first of `capcodes` (several only for FLEX group pages). */
export type ParsedPage = {
  capcode: string;
  capcodes: string[];
  message: string;
  protocol: string;
  timestamp: Date;
  /** FLEX only: K complete, F fragment awaiting a continuation, C continuation. */
  fragment?: "K" | "F" | "C";
};

/** Why a line produced no page; "unrecognised" means it looked like a decoder line but matched no format. */
export type SkipReason =
  | "blank"
  | "not-a-page"
  | "tone-only"
  | "empty-text"
  | "unsupported-type"
  | "unrecognised";

export type LineResult = { kind: "page"; page: ParsedPage } | { kind: "skip"; reason: SkipReason };

/** Parses one multimon-ng output line; null when the line is not a pager message with text. */
export function parseMultimonLine(line: string, now: Date): ParsedPage | null {
  const result = classifyMultimonLine(line, now);
  return result.kind === "page" ? result.page : null;
}

const PROTOCOL_AT = /(POCSAG\d+|FLEX)[:|]/;
const PREFIX_TIME = /(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2}): $/;

/** Like parseMultimonLine, but says why a line was skipped (the reader logs unrecognised lines loudly). */
export function classifyMultimonLine(rawLine: string, now: Date): LineResult {
  const line = rawLine.replace(/[\r\n]+$/, "");
  if (line.trim() === "") return skip("blank");
  if (line.trimStart().startsWith("{")) return parseJsonLine(line.trim(), now);

  const at = PROTOCOL_AT.exec(line);
  if (!at) return skip("not-a-page");
  const prefix = line.slice(0, at.index);
  const body = line.slice(at.index);
  const prefixTime = parsePrefixTime(prefix);

  if (at[1]?.startsWith("POCSAG")) return parsePocsag(body, prefixTime ?? now);
  return parseFlex(body, prefixTime ?? now);
}

const POCSAG =
  /^(POCSAG\d+): +Address: *(\d+) +Function: *(\d)\b *(?:Certainty: *-?\d+ *)?(?:(Alpha|Numeric|Skyper|Alpha \(SKYPER\)): ?(.*)|<LOST SYNC> *)?$/;

function parsePocsag(body: string, time: Date): LineResult {
  const m = POCSAG.exec(body);
  if (!m) {
    // Partial decodes (`Address:       -`) and stats lines are not pages; anything else is worth a warning.
    return /Address: +-/.test(body) ? skip("not-a-page") : skip("unrecognised");
  }
  const [, protocol, address, , kind, text] = m;
  if (kind === undefined) return skip("tone-only");
  if (kind !== "Alpha" && kind !== "Numeric") return skip("unsupported-type");
  const message = cleanPocsagText(text ?? "");
  if (message === "") return skip("empty-text");
  const capcode = normaliseCapcode(address ?? "");
  return page({ capcode, capcodes: [capcode], message, protocol: protocol ?? "POCSAG", timestamp: time });
}

// Names multimon-ng's translate_alpha() prints for ASCII control characters.
const CONTROL_NAMES =
  "NUL|SOH|STX|ETX|EOT|ENQ|ACK|BEL|BS|VT|FF|SO|SI|DLE|DC1|DC2|DC3|DC4|NAK|SYN|ETB|CAN|EM|SUB|ESC|FS|GS|RS|US|DEL";
const LINE_BREAKS = /(?:<CR>|<LF>|<HT>)+/g;
const CONTROLS = new RegExp(`<(?:${CONTROL_NAMES})>`, "g");

function cleanPocsagText(text: string): string {
  return text
    .replace(/<LOST SYNC>\s*$/, "")
    .replace(LINE_BREAKS, " ")
    .replace(CONTROLS, "")
    .replace(/Ä/g, "[")
    .replace(/Ü/g, "]")
    .trim();
}

const FLEX_PIPE = /^FLEX\|([^|]*)\|([^|]*)\|([^|]*)\|([^|]*)\|([A-Z]{3})\|(.*)$/;
const FLEX_SPACE =
  /^FLEX: *(.*?) *(\d{3,4}\/\d\/[A-Z?](?:\/[A-Z?])?) +(\d{2}\.\d{3}) +\[([\d ]+)\] +([A-Z]{3})(?: (.*))?$/;
const FLEX_MODE = /^\d{3,4}\/\d\/([A-Z?])(?:\/([A-Z?]))?$/;

function parseFlex(body: string, fallbackTime: Date): LineResult {
  const pipe = FLEX_PIPE.exec(body);
  const space = pipe ? null : FLEX_SPACE.exec(body);
  const m = pipe ?? space;
  if (!m) {
    // Debug/verbose FLEX lines ("FLEX: Sync Code not found...") carry no page.
    return /^FLEX: [A-Z][a-z]/.test(body) ? skip("not-a-page") : skip("unrecognised");
  }
  const [, timeText = "", mode = "", , capcodeField = "", type = "", rawText = ""] = m;
  if (type !== "ALN" && type !== "GPN" && type !== "NUM") return skip("unsupported-type");

  const modeMatch = FLEX_MODE.exec(mode.trim());
  if (!modeMatch) return skip("unrecognised");
  const fragment = type === "NUM" ? undefined : fragmentFlag(modeMatch[1], modeMatch[2]);

  const capcodes = flexCapcodes(capcodeField);
  if (capcodes.length === 0) return skip("unrecognised");

  let message = rawText.replace(/(?:\\r|\\n|\\t)+/g, " ");
  // A fragment keeps the whitespace at the edge it will be joined on, so joined words stay apart.
  if (fragment === "F") message = message.trimStart();
  else if (fragment === "C") message = message.trimEnd();
  else message = message.trim();
  if (message.trim() === "") return skip("empty-text");

  return page({
    capcode: capcodes[0] ?? "",
    capcodes,
    message,
    protocol: "FLEX",
    timestamp: parseUtc(timeText) ?? fallbackTime,
    ...(fragment ? { fragment } : {}),
  });
}

/**
 * 0.9.3v prints flag/phase (`K/A`), later versions phase/flag (`A/K`). Phases are A-D and flags K, F, C
 * (or `?`), so whichever token is K, F or ? is the flag; otherwise one of them is C and it is the flag.
 */
function fragmentFlag(first: string | undefined, second: string | undefined): "K" | "F" | "C" | undefined {
  if (second === undefined) return undefined;
  for (const token of [first, second]) {
    if (token === "K" || token === "F") return token;
    if (token === "?") return "K";
  }
  return first === "C" || second === "C" ? "C" : undefined;
}

// FLEX dynamic group capcodes (demod_flex.c: 2029568..2029583); the members follow them on the line.
const FLEX_GROUP_FIRST = 2029568;
const FLEX_GROUP_LAST = 2029583;

function flexCapcodes(field: string): string[] {
  const all = field
    .trim()
    .split(/\s+/)
    .filter((s) => /^\d+$/.test(s))
    .map(normaliseCapcode);
  const members = all.filter((c) => {
    const n = Number(c);
    return n < FLEX_GROUP_FIRST || n > FLEX_GROUP_LAST;
  });
  // Members known: page them. Only the group capcode: keep it, so the page is not lost.
  return [...new Set(members.length > 0 ? members : all)];
}

/** Keeps the significant digits and zero-pads to at least 7, as PagerMon's readers do. */
export function normaliseCapcode(digits: string): string {
  return digits.replace(/^0+/, "").padStart(7, "0");
}

function parseJsonLine(line: string, now: Date): LineResult {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return skip("not-a-page");
  }
  if (typeof value !== "object" || value === null) return skip("not-a-page");
  const o = value as Record<string, unknown>;
  const demod = typeof o.demod_name === "string" ? o.demod_name : "";
  if (!demod.startsWith("POCSAG")) return skip(demod.startsWith("FLEX") ? "unrecognised" : "not-a-page");
  if (typeof o.address !== "number" || !Number.isInteger(o.address) || o.address < 0)
    return skip("not-a-page");
  const text = typeof o.alpha === "string" ? o.alpha : typeof o.numeric === "string" ? o.numeric : undefined;
  if (text === undefined) return skip(typeof o.skyper === "string" ? "unsupported-type" : "tone-only");
  const message = cleanPocsagText(text);
  if (message === "") return skip("empty-text");
  const capcode = normaliseCapcode(String(o.address));
  return page({ capcode, capcodes: [capcode], message, protocol: demod, timestamp: now });
}

function parsePrefixTime(prefix: string): Date | undefined {
  const m = PREFIX_TIME.exec(prefix);
  if (!m) return undefined;
  const [y, mo, d, h, mi, s] = m.slice(1).map(Number) as [number, number, number, number, number, number];
  const date = new Date(y, mo - 1, d, h, mi, s);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

function parseUtc(text: string): Date | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/.exec(text.trim());
  if (!m) return undefined;
  const [y, mo, d, h, mi, s] = m.slice(1).map(Number) as [number, number, number, number, number, number];
  const date = new Date(Date.UTC(y, mo - 1, d, h, mi, s));
  return Number.isNaN(date.getTime()) ? undefined : date;
}

function skip(reason: SkipReason): LineResult {
  return { kind: "skip", reason };
}

function page(p: ParsedPage): LineResult {
  return { kind: "page", page: p };
}

type Timers = {
  setTimeout: (fn: () => void, ms: number) => unknown;
  clearTimeout: (handle: unknown) => void;
};

/**
 * Joins FLEX fragments: an F page is held until the C page for the same capcodes arrives (F + C are
 * emitted as one complete page). Nothing is dropped: a fragment whose continuation does not come within
 * `waitMs`, or is followed by an unrelated page for the same capcodes, is emitted on its own, and an
 * orphan C is emitted as it is. Everything else passes straight through. Emitted texts are trimmed.
 */
export class FlexFragmentJoiner {
  private readonly pending = new Map<string, { page: ParsedPage; timer: unknown }>();

  constructor(
    private readonly emit: (page: ParsedPage) => void,
    private readonly waitMs = 4000,
    private readonly timers: Timers = {
      setTimeout: (fn, ms) => setTimeout(fn, ms),
      clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
    },
  ) {}

  push(p: ParsedPage): void {
    const key = `${p.protocol}:${p.capcodes.join(",")}`;
    const held = this.pending.get(key);
    if (p.fragment === "F") {
      if (held) {
        this.timers.clearTimeout(held.timer);
        held.page = { ...held.page, message: held.page.message + p.message };
        held.timer = this.timers.setTimeout(() => this.release(key), this.waitMs);
      } else {
        this.pending.set(key, {
          page: p,
          timer: this.timers.setTimeout(() => this.release(key), this.waitMs),
        });
      }
      return;
    }
    if (held) {
      this.timers.clearTimeout(held.timer);
      this.pending.delete(key);
      if (p.fragment === "C") {
        this.out({ ...held.page, message: held.page.message + p.message, fragment: "K" });
        return;
      }
      this.out(held.page);
    }
    this.out(p);
  }

  /** Emits every held fragment now (on shutdown, so none is lost). */
  flushAll(): void {
    for (const key of [...this.pending.keys()]) this.release(key);
  }

  get heldCount(): number {
    return this.pending.size;
  }

  private release(key: string): void {
    const held = this.pending.get(key);
    if (!held) return;
    this.timers.clearTimeout(held.timer);
    this.pending.delete(key);
    this.out(held.page);
  }

  private out(p: ParsedPage): void {
    const message = p.message.trim();
    if (message !== "") this.emit({ ...p, message });
  }
}
