import { describe, expect, it } from "vitest";
import { buildLocalityIndex, localityAt } from "./address-localities.js";

const index = buildLocalityIndex([
  { name: "Kangaroo Flat", state: "vic" },
  { name: "Kangaroo Ground", state: "VIC" },
  { name: "Bridgewater", state: "TAS" },
  { name: "Bridgewater On  Loddon", state: "VIC" },
  { name: "Ravenswood", state: "QLD" },
  { name: "Ravenswood", state: "VIC" },
  { name: "Ravenswood", state: "WA" },
  { name: "Mount Clear", state: "VIC" },
  { name: "O\u2019Connor", state: "ACT" },
]);
const at = (text: string, from = 0) => localityAt(index, text.split(" "), from);

describe("localityAt", () => {
  it("reads the locality of most words that the tokens spell", () => {
    expect(at("BRIDGEWATER ON LODDON SVVB")).toEqual({ suburb: "BRIDGEWATER ON LODDON", state: "VIC" });
    expect(at("BRIDGEWATER ON")).toEqual({ suburb: "BRIDGEWATER", state: "TAS" });
    expect(at("45 MAIN ST KANGAROO GROUND", 3)).toEqual({ suburb: "KANGAROO GROUND", state: "VIC" });
  });

  it("reads nothing from part of a name, a longer word or a word it does not start with", () => {
    expect(at("KANGAROO")).toBeNull();
    expect(at("KANGAROO FLATS")).toBeNull();
    expect(at("KANGAROOS FLAT")).toBeNull();
    expect(at("KANGAROO  FLAT")).toBeNull();
    expect(at("FLAT")).toBeNull();
    expect(at("")).toBeNull();
    expect(at("KANGAROO FLAT", 2)).toBeNull();
  });

  it("links a name several states share to VIC, else to the first state given", () => {
    expect(at("RAVENSWOOD")).toEqual({ suburb: "RAVENSWOOD", state: "VIC" });
    expect(localityAt(buildLocalityIndex([{ name: "Ravenswood", state: "QLD" }]), ["RAVENSWOOD"], 0)).toEqual(
      {
        suburb: "RAVENSWOOD",
        state: "QLD",
      },
    );
  });

  it("finds MOUNT written MT, and a curly apostrophe written straight", () => {
    expect(at("MT CLEAR")).toEqual({ suburb: "MT CLEAR", state: "VIC" });
    expect(at("MOUNT CLEAR")).toEqual({ suburb: "MOUNT CLEAR", state: "VIC" });
    expect(at("O'CONNOR")).toEqual({ suburb: "O'CONNOR", state: "ACT" });
  });
});
