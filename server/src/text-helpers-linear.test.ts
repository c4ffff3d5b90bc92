import { ADVERSARIAL_TEXTS, superLinearHelpers } from "@turnout/domain/testing/linear-time";
import { describe, expect, it } from "vitest";
import { maskDataInText, maskPhonesInText } from "./logger.js";
import { displayFileName } from "./modules/feedback/media.js";
import { parseFormLeniently } from "./modules/ingest/routes.js";

/**
 * The server's own text helpers that see what a stranger or a receiver sends (issue 28), timed on the
 * domain's adversarial texts and on runs shaped for each: a form of escapes and separators, a file
 * name of separators and control characters, a log line of what looks like phone numbers, codes and
 * database details. Per character, linear work costs on a long text what it does on a short one; past
 * 8 times as much the check fails.
 */
const helpers: [string, (text: string) => unknown][] = [
  ["parseFormLeniently", (text) => parseFormLeniently(Buffer.from(text, "latin1"))],
  ["displayFileName", (text) => displayFileName(text, "mp4")],
  ["maskPhonesInText", maskPhonesInText],
  ["maskDataInText", maskDataInText],
];

const shaped: Record<string, (n: number) => string> = {
  "escapes and separators": (n) => "%4%a%=&+".repeat(n / 8),
  "one long field": (n) => `message=${"%41".repeat(n / 3)}`,
  "path separators": (n) => "/\\".repeat(n / 2),
  "control and direction marks": (n) => "\u0001\u202e\ud800".repeat(n / 3),
  "phone-like digits": (n) => "04 12 ".repeat(n / 6),
  codes: (n) => "123456 ".repeat(n / 7),
  "unclosed quotes": (n) => ': "'.repeat(n / 3),
  "database details": (n) => "Failing row contains (".repeat(n / 22),
  "key details": (n) => "Key (a)=(".repeat(n / 9),
};

describe("server text helpers on adversarial input", () => {
  it("does work linear in the text for every helper and every kind of run", () => {
    expect(superLinearHelpers(helpers, { ...ADVERSARIAL_TEXTS, ...shaped })).toEqual([]);
  }, 120_000);
});
