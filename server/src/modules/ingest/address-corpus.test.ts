import { directionsUrl, extractAddress } from "@turnout/domain";
import { describe, expect, it } from "vitest";
import { addressLocalities } from "../../shared/localities/address-localities.js";
import { ADDRESS_CORPUS as CORPUS } from "./address-corpus.js";

/** The directions link a destination of the corpus stands for; null for "". */
function expectedLink(destination: string): string | null {
  if (destination === "") return null;
  if (destination.startsWith("@")) {
    const [latitude, longitude] = destination.slice(1).split(",").map(Number);
    return directionsUrl({ primary_address: null, latitude: latitude!, longitude: longitude! });
  }
  const [address, state = "VIC"] = destination.split(" | ");
  return directionsUrl({ primary_address: address!, latitude: null, longitude: null }, state);
}

describe("extractAddress with the bundled localities on a corpus of Victorian pager messages", () => {
  const localities = addressLocalities();
  const outcomes = CORPUS.map(([text, destination]) => ({
    text,
    expected: expectedLink(destination),
    actual: extractAddress(text, localities).directions_url,
  }));
  const withAddress = outcomes.filter((o) => o.expected !== null);
  const hits = withAddress.filter((o) => o.actual === o.expected);
  const misses = withAddress.filter((o) => o.actual === null);
  const falseLinks = outcomes.filter((o) => o.actual !== null && o.actual !== o.expected);
  const rate = (100 * hits.length) / withAddress.length;

  it("holds at least 150 messages, with and without an address", () => {
    expect(CORPUS.length).toBeGreaterThanOrEqual(150);
    expect(CORPUS.length - withAddress.length).toBeGreaterThanOrEqual(20);
  });

  it(`links ${hits.length} of ${withAddress.length} messages with an address (${rate.toFixed(1)} %) to it`, () => {
    const missed = misses.map((o) => o.text).join("\n");
    expect(rate, `${rate.toFixed(1)} % linked; missed:\n${missed}`).toBeGreaterThanOrEqual(95);
  });

  it(`gives no false link (${falseLinks.length} found)`, () => {
    expect(falseLinks.map((o) => `${o.text}\n  -> ${o.actual}`)).toEqual([]);
  });
});
