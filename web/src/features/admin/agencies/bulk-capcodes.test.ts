import { parseBulkCapcodes } from "./bulk-capcodes";

describe("bulk capcode text", () => {
  it("reads capcode, alias and area from comma or tab separated lines and skips blank ones", () => {
    expect(parseBulkCapcodes("1234567, Kangaroo Flat FB, Bendigo\n\n0012345\t\tGeelong\n42")).toEqual({
      capcodes: [
        { capcode: "1234567", alias: "Kangaroo Flat FB", area: "Bendigo" },
        { capcode: "0012345", alias: null, area: "Geelong" },
        { capcode: "42", alias: null, area: null },
      ],
      errors: [],
    });
  });

  it("names each line whose first field is not 1 to 10 digits", () => {
    expect(parseBulkCapcodes("12a,Alias\n12345678901\n1234567").errors).toEqual([
      "Line 1: '12a' is not a capcode (1 to 10 digits).",
      "Line 2: '12345678901' is not a capcode (1 to 10 digits).",
    ]);
  });
});
