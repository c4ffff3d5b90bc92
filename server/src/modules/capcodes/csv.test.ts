import { describe, expect, it } from "vitest";
import { importedText, parseCsv, toCsv } from "./csv.js";

describe("capcode CSV", () => {
  it("reads quoted fields with commas, quotes and line breaks, and the line each record starts on", () => {
    const text = '\ufeffaddress,alias,agency\r\n1234567,"Smith, ""Big"" Hill\nFB",CFA\r\n\r\n7654321,,SES';
    expect(parseCsv(text)).toEqual([
      { line: 1, fields: ["address", "alias", "agency"] },
      { line: 2, fields: ["1234567", 'Smith, "Big" Hill\nFB', "CFA"] },
      { line: 5, fields: ["7654321", "", "SES"] },
    ]);
  });

  it("reads LF-only text and a last line without a line end, skipping a line of empty fields", () => {
    expect(parseCsv("a,b\n,\n1,2")).toEqual([
      { line: 1, fields: ["a", "b"] },
      { line: 3, fields: ["1", "2"] },
    ]);
  });

  it("writes text that reads back as written, formula-like text included", () => {
    const rows = [
      ["address", "alias"],
      ["0001234", '=HYPERLINK("x")'],
      ["0001235", " edge spaces "],
      ["0001236", "line\r\nbreak, comma"],
    ];
    const csv = toCsv(rows);
    expect(csv).toContain(`0001234,"'=HYPERLINK(""x"")"\r\n`);
    const back = parseCsv(csv).map((r) => r.fields.map(importedText));
    expect(back).toEqual(rows);
  });
});
