import { describe, expect, it } from "vitest";
import { buildLocalityIndex, directionsUrl, type ExtractedAddress, extractAddress } from "./address.js";

const MAPS = "https://www.google.com/maps/dir/?api=1&destination=";

/** The directions link expected for a destination, written out by hand in each case below. */
const maps = (destination: string): string => `${MAPS}${encodeURIComponent(destination)}`;

/** Nothing read: every field null, no cross streets, not mappable. */
const NOTHING: ExtractedAddress = {
  primary_address: null,
  street: null,
  suburb: null,
  cross_streets: [],
  map_reference: null,
  grid_reference: null,
  latitude: null,
  longitude: null,
  has_mappable_address: false,
  directions_url: null,
};

const read = (fields: Partial<ExtractedAddress>): ExtractedAddress => ({ ...NOTHING, ...fields });

// Made-up messages in the real Victorian turnout grammar, each with every field it must yield.
const MESSAGES: Array<{ what: string; text: string; expected: ExtractedAddress }> = [
  {
    what: "the DESIGN.md example: house number, cross streets, Melway, grid reference",
    text: "@@ALERT F251108123 BRAV2 STRUC1 SHED FIRE 14 EXAMPLE RD SOMEVILLE /FIRST ST //SECOND AV M 45 C7 (512345) CBRAV CNEIG [BRAV]",
    expected: read({
      primary_address: "14 EXAMPLE RD, SOMEVILLE",
      street: "14 EXAMPLE RD",
      suburb: "SOMEVILLE",
      cross_streets: ["FIRST ST", "SECOND AV"],
      map_reference: "M 45 C7",
      grid_reference: "512345",
      has_mappable_address: true,
      directions_url: maps("14 EXAMPLE RD, SOMEVILLE, VIC, Australia"),
    }),
  },
  {
    what: "the same message with its @@ prefix already stripped",
    text: "ALERT F251108123 BRAV2 STRUC1 SHED FIRE 14 EXAMPLE RD SOMEVILLE /FIRST ST //SECOND AV M 45 C7 (512345) CBRAV CNEIG [BRAV]",
    expected: read({
      primary_address: "14 EXAMPLE RD, SOMEVILLE",
      street: "14 EXAMPLE RD",
      suburb: "SOMEVILLE",
      cross_streets: ["FIRST ST", "SECOND AV"],
      map_reference: "M 45 C7",
      grid_reference: "512345",
      has_mappable_address: true,
      directions_url: maps("14 EXAMPLE RD, SOMEVILLE, VIC, Australia"),
    }),
  },
  {
    what: "an Hb copy: no cross streets, job number after the map reference",
    text: "HbCBRAV - STRUC1 SHED FIRE 14 EXAMPLE RD SOMEVILLE M 45 C7 (512345) F251108123 RESPOND TO STATION",
    expected: read({
      primary_address: "14 EXAMPLE RD, SOMEVILLE",
      street: "14 EXAMPLE RD",
      suburb: "SOMEVILLE",
      map_reference: "M 45 C7",
      grid_reference: "512345",
      has_mappable_address: true,
      directions_url: maps("14 EXAMPLE RD, SOMEVILLE, VIC, Australia"),
    }),
  },
  {
    what: "a house-number range and a two-word suburb",
    text: "@@ALERT F251109045 MELT1 G&SC1 GRASS FIRE NEAR HOUSES 12-14 BROWN RD MELTON SOUTH /FERRIS RD //EXFORD RD M 336 F9 (243618) CMELT [MELT]",
    expected: read({
      primary_address: "12-14 BROWN RD, MELTON SOUTH",
      street: "12-14 BROWN RD",
      suburb: "MELTON SOUTH",
      cross_streets: ["FERRIS RD", "EXFORD RD"],
      map_reference: "M 336 F9",
      grid_reference: "243618",
      has_mappable_address: true,
      directions_url: maps("12-14 BROWN RD, MELTON SOUTH, VIC, Australia"),
    }),
  },
  {
    what: "a unit 3/14 (slash without a space is not a cross-street marker) in NORTH MELBOURNE",
    text: "@@ALERT F251110002 NMEL1 ALARC1 AFA SMOKE DETECTOR 3/14 ERROL ST NORTH MELBOURNE /QUEENSBERRY ST //VICTORIA ST M 2A B4 (318712) AFRV [NMEL]",
    expected: read({
      primary_address: "3/14 ERROL ST, NORTH MELBOURNE",
      street: "3/14 ERROL ST",
      suburb: "NORTH MELBOURNE",
      cross_streets: ["QUEENSBERRY ST", "VICTORIA ST"],
      map_reference: "M 2A B4",
      grid_reference: "318712",
      has_mappable_address: true,
      directions_url: maps("3/14 ERROL ST, NORTH MELBOURNE, VIC, Australia"),
    }),
  },
  {
    what: "a unit written U3 27",
    text: "@@ALERT F251110310 FRNK2 STRUC1 UNIT FIRE U3 27 BEACH ST FRANKSTON /PLOWMAN PL //DAVEY ST M 99 C1 (301455) CFRNK [FRNK]",
    expected: read({
      primary_address: "U3 27 BEACH ST, FRANKSTON",
      street: "U3 27 BEACH ST",
      suburb: "FRANKSTON",
      cross_streets: ["PLOWMAN PL", "DAVEY ST"],
      map_reference: "M 99 C1",
      grid_reference: "301455",
      has_mappable_address: true,
      directions_url: maps("U3 27 BEACH ST, FRANKSTON, VIC, Australia"),
    }),
  },
  {
    what: "a unit written UNIT 3 14",
    text: "@@ALERT F251126005 BRAV2 STRUC1 KITCHEN FIRE UNIT 3 14 EXAMPLE RD SOMEVILLE /FIRST ST M 45 C7 (512345) CBRAV [BRAV]",
    expected: read({
      primary_address: "UNIT 3 14 EXAMPLE RD, SOMEVILLE",
      street: "UNIT 3 14 EXAMPLE RD",
      suburb: "SOMEVILLE",
      cross_streets: ["FIRST ST"],
      map_reference: "M 45 C7",
      grid_reference: "512345",
      has_mappable_address: true,
      directions_url: maps("UNIT 3 14 EXAMPLE RD, SOMEVILLE, VIC, Australia"),
    }),
  },
  {
    what: "ST in the free text and a suburb starting with ST (ST KILDA EAST)",
    text: "@@ALERT F251111120 STKD1 STRUC1 ST JOHNS HALL KITCHEN FIRE 88 CHAPEL ST ST KILDA EAST /INKERMAN ST //ALBION ST M 58 C10 (325402) AFRV [STKD]",
    expected: read({
      primary_address: "88 CHAPEL ST, ST KILDA EAST",
      street: "88 CHAPEL ST",
      suburb: "ST KILDA EAST",
      cross_streets: ["INKERMAN ST", "ALBION ST"],
      map_reference: "M 58 C10",
      grid_reference: "325402",
      has_mappable_address: true,
      directions_url: maps("88 CHAPEL ST, ST KILDA EAST, VIC, Australia"),
    }),
  },
  {
    what: "a street type written in full followed by an ST suburb",
    text: "@@ALERT F251126003 STKD1 STRUC1 HOUSE FIRE 14 CHAPEL STREET ST KILDA /INKERMAN ST M 58 C10 (325402) AFRV [STKD]",
    expected: read({
      primary_address: "14 CHAPEL STREET, ST KILDA",
      street: "14 CHAPEL STREET",
      suburb: "ST KILDA",
      cross_streets: ["INKERMAN ST"],
      map_reference: "M 58 C10",
      grid_reference: "325402",
      has_mappable_address: true,
      directions_url: maps("14 CHAPEL STREET, ST KILDA, VIC, Australia"),
    }),
  },
  {
    what: "a street named after a saint (ST GEORGES RD)",
    text: "@@ALERT F251119050 NCOT1 ALARC1 AFA 14 ST GEORGES RD NORTHCOTE /SEPARATION ST //HUTTON ST M 30 D3 (334455) AFRV [NCOT]",
    expected: read({
      primary_address: "14 ST GEORGES RD, NORTHCOTE",
      street: "14 ST GEORGES RD",
      suburb: "NORTHCOTE",
      cross_streets: ["SEPARATION ST", "HUTTON ST"],
      map_reference: "M 30 D3",
      grid_reference: "334455",
      has_mappable_address: true,
      directions_url: maps("14 ST GEORGES RD, NORTHCOTE, VIC, Australia"),
    }),
  },
  {
    what: "a street named like its suburb (MOUNT MACEDON), Spatial Vision SVC",
    text: "@@ALERT F251112077 MACE1 G&SC2 SCRUB FIRE 410 MOUNT MACEDON RD MOUNT MACEDON /HONOUR AV //ALEXANDRA RD SVC 6608 E2 (772190) CMACE CGISB [MACE]",
    expected: read({
      primary_address: "410 MOUNT MACEDON RD, MOUNT MACEDON",
      street: "410 MOUNT MACEDON RD",
      suburb: "MOUNT MACEDON",
      cross_streets: ["HONOUR AV", "ALEXANDRA RD"],
      map_reference: "SVC 6608 E2",
      grid_reference: "772190",
      has_mappable_address: true,
      directions_url: maps("410 MOUNT MACEDON RD, MOUNT MACEDON, VIC, Australia"),
    }),
  },
  {
    what: "a full type word inside the street name (HIGH STREET RD)",
    text: "@@ALERT F251126002 ASHW1 STRUC1 HOUSE FIRE 1402 HIGH STREET RD ASHWOOD /WARRIGAL RD M 61 C8 (611208) AFRV [ASHW]",
    expected: read({
      primary_address: "1402 HIGH STREET RD, ASHWOOD",
      street: "1402 HIGH STREET RD",
      suburb: "ASHWOOD",
      cross_streets: ["WARRIGAL RD"],
      map_reference: "M 61 C8",
      grid_reference: "611208",
      has_mappable_address: true,
      directions_url: maps("1402 HIGH STREET RD, ASHWOOD, VIC, Australia"),
    }),
  },
  {
    what: "no house number after the incident description, Spatial Vision SVNE",
    text: "@@ALERT F251113004 KILM1 G&SC1 GRASS FIRE NORTHERN HWY KILMORE /SYDNEY ST //MELBOURNE ST SVNE 8352 D8 (901233) CKILM [KILM]",
    expected: read({
      primary_address: "NORTHERN HWY, KILMORE",
      street: "NORTHERN HWY",
      suburb: "KILMORE",
      cross_streets: ["SYDNEY ST", "MELBOURNE ST"],
      map_reference: "SVNE 8352 D8",
      grid_reference: "901233",
      has_mappable_address: true,
      directions_url: maps("NORTHERN HWY, KILMORE, VIC, Australia"),
    }),
  },
  {
    what: "no house number right after the response code",
    text: "@@ALERT F251113010 LARA1 INCIC1 FORBES RD LARA /PATULLOS RD SVC 8033 D6 (718436) CLARA [LARA]",
    expected: read({
      primary_address: "FORBES RD, LARA",
      street: "FORBES RD",
      suburb: "LARA",
      cross_streets: ["PATULLOS RD"],
      map_reference: "SVC 8033 D6",
      grid_reference: "718436",
      has_mappable_address: true,
      directions_url: maps("FORBES RD, LARA, VIC, Australia"),
    }),
  },
  {
    what: "an SES tree-down job, no house number, words of the street and suburb both kept",
    text: "@@ALERT S251116001 SES VICSES TREE DOWN OLD COACH RD BELGRAVE /MONBULK RD M 75 H8 [BELS]",
    expected: read({
      primary_address: "OLD COACH RD, BELGRAVE",
      street: "OLD COACH RD",
      suburb: "BELGRAVE",
      cross_streets: ["MONBULK RD"],
      map_reference: "M 75 H8",
      has_mappable_address: true,
      directions_url: maps("OLD COACH RD, BELGRAVE, VIC, Australia"),
    }),
  },
  {
    what: "an intersection with the slash glued: CNR A ST/B ST NTH",
    text: "@@ALERT F251114321 BALL1 RESCC1 CAR V TREE CNR STURT ST/DAWSON ST NTH BALLARAT CENTRAL SVC 6228 E3 (245678) CBALL [BALL]",
    expected: read({
      primary_address: "CNR STURT ST / DAWSON ST NTH, BALLARAT CENTRAL",
      street: "CNR STURT ST / DAWSON ST NTH",
      suburb: "BALLARAT CENTRAL",
      map_reference: "SVC 6228 E3",
      grid_reference: "245678",
      has_mappable_address: true,
      directions_url: maps("STURT ST & DAWSON ST NTH, BALLARAT CENTRAL, VIC, Australia"),
    }),
  },
  {
    what: "an intersection written with spaces around the slash, then a cross street",
    text: "@@ALERT F251114500 SUNB1 RESCC1 MVA CNR HORNE ST / BARKLY ST SUNBURY /O'SHANASSY ST M 382 J5 (112233) CSUNB [SUNB]",
    expected: read({
      primary_address: "CNR HORNE ST / BARKLY ST, SUNBURY",
      street: "CNR HORNE ST / BARKLY ST",
      suburb: "SUNBURY",
      cross_streets: ["O'SHANASSY ST"],
      map_reference: "M 382 J5",
      grid_reference: "112233",
      has_mappable_address: true,
      directions_url: maps("HORNE ST & BARKLY ST, SUNBURY, VIC, Australia"),
    }),
  },
  {
    what: "an Ambulance Victoria E job with only coordinates",
    text: "@@ALERT E25110812345 AMBULANCE ASSIST CFA LAT/LON:-37.29, 144.42",
    expected: read({
      latitude: -37.29,
      longitude: 144.42,
      has_mappable_address: true,
      directions_url: `${MAPS}-37.29%2C144.42`,
    }),
  },
  {
    what: "an address and coordinates: directions go to the coordinates",
    text: "@@ALERT F251115678 GISB1 G&SC1 GRASS FIRE 1250 BURKE AND WILLS TRK GISBORNE SOUTH /BACCHUS MARSH RD SVC 6608 E2 (812345) LAT/LON:-37.52, 144.58 CGISB [GISB]",
    expected: read({
      primary_address: "1250 BURKE AND WILLS TRK, GISBORNE SOUTH",
      street: "1250 BURKE AND WILLS TRK",
      suburb: "GISBORNE SOUTH",
      cross_streets: ["BACCHUS MARSH RD"],
      map_reference: "SVC 6608 E2",
      grid_reference: "812345",
      latitude: -37.52,
      longitude: 144.58,
      has_mappable_address: true,
      directions_url: `${MAPS}-37.52%2C144.58`,
    }),
  },
  {
    what: "coordinates out of range are dropped",
    text: "@@ALERT E25110812346 AMBULANCE ASSIST CFA LAT/LON:-137.29, 144.42",
    expected: NOTHING,
  },
  {
    what: "an SES S job with no cross streets and no grid reference",
    text: "@@ALERT S251108123 SES VICSES TREE DOWN 3 SAMPLE CT SOMEVILLE SVC 6608 E2 [SOMES]",
    expected: read({
      primary_address: "3 SAMPLE CT, SOMEVILLE",
      street: "3 SAMPLE CT",
      suburb: "SOMEVILLE",
      map_reference: "SVC 6608 E2",
      has_mappable_address: true,
      directions_url: maps("3 SAMPLE CT, SOMEVILLE, VIC, Australia"),
    }),
  },
  {
    what: "an SES Hb copy with the S job number after the map reference",
    text: "HbSOMES - NOSTC1 ROOF DAMAGE 21 KOOKABURRA WAY DROMANA SVC 8551 F5 S251108456",
    expected: read({
      primary_address: "21 KOOKABURRA WAY, DROMANA",
      street: "21 KOOKABURRA WAY",
      suburb: "DROMANA",
      map_reference: "SVC 8551 F5",
      has_mappable_address: true,
      directions_url: maps("21 KOOKABURRA WAY, DROMANA, VIC, Australia"),
    }),
  },
  {
    what: "an SES job with a cross street closed by the paged unit, no map reference",
    text: "@@ALERT S251123456 SES VICSES FLOOD WATER ENTERING HOUSE 5 RIVER ST MAFFRA /JOHNSON ST [MAFS]",
    expected: read({
      primary_address: "5 RIVER ST, MAFFRA",
      street: "5 RIVER ST",
      suburb: "MAFFRA",
      cross_streets: ["JOHNSON ST"],
      has_mappable_address: true,
      directions_url: maps("5 RIVER ST, MAFFRA, VIC, Australia"),
    }),
  },
  {
    what: "a cross street running into unit codes is cut after its street type",
    text: "@@ALERT S251123457 SES VICSES FLOOD WATER ENTERING HOUSE 5 RIVER ST MAFFRA /JOHNSON ST CMAFF",
    expected: read({
      primary_address: "5 RIVER ST, MAFFRA",
      street: "5 RIVER ST",
      suburb: "MAFFRA",
      cross_streets: ["JOHNSON ST"],
      has_mappable_address: true,
      directions_url: maps("5 RIVER ST, MAFFRA, VIC, Australia"),
    }),
  },
  {
    what: "RD in the free text does not leak into the street; two-word suburb",
    text: "@@ALERT F251118440 CRAN1 RESCC1 CAR OFF RD INTO TREE 55 SOUTH GIPPSLAND HWY CRANBOURNE EAST /BERWICK-CRANBOURNE RD M 134 K8 (447812) CCRAN [CRAN]",
    expected: read({
      primary_address: "55 SOUTH GIPPSLAND HWY, CRANBOURNE EAST",
      street: "55 SOUTH GIPPSLAND HWY",
      suburb: "CRANBOURNE EAST",
      cross_streets: ["BERWICK-CRANBOURNE RD"],
      map_reference: "M 134 K8",
      grid_reference: "447812",
      has_mappable_address: true,
      directions_url: maps("55 SOUTH GIPPSLAND HWY, CRANBOURNE EAST, VIC, Australia"),
    }),
  },
  {
    what: "a three-word suburb (NARRE WARREN NORTH) and a RISE cross street",
    text: "@@ALERT F251119001 NARR1 STRUC1 HOUSE FIRE PERSONS REPORTED 7 AMBER CT NARRE WARREN NORTH /HEATHERWOOD RISE M 110 D3 (402113) CNARR [NARR]",
    expected: read({
      primary_address: "7 AMBER CT, NARRE WARREN NORTH",
      street: "7 AMBER CT",
      suburb: "NARRE WARREN NORTH",
      cross_streets: ["HEATHERWOOD RISE"],
      map_reference: "M 110 D3",
      grid_reference: "402113",
      has_mappable_address: true,
      directions_url: maps("7 AMBER CT, NARRE WARREN NORTH, VIC, Australia"),
    }),
  },
  {
    what: "CRES and a suburb ending in a type word (OCEAN GROVE)",
    text: "@@ALERT F251120015 OCGR1 STRUC1 CARAVAN FIRE 9 DAWSON CRES OCEAN GROVE /THE TERRACE //MADEIRA PDE SVC 8246 C4 (603311) COCGR [OCGR]",
    expected: read({
      primary_address: "9 DAWSON CRES, OCEAN GROVE",
      street: "9 DAWSON CRES",
      suburb: "OCEAN GROVE",
      cross_streets: ["THE TERRACE", "MADEIRA PDE"],
      map_reference: "SVC 8246 C4",
      grid_reference: "603311",
      has_mappable_address: true,
      directions_url: maps("9 DAWSON CRES, OCEAN GROVE, VIC, Australia"),
    }),
  },
  {
    what: "an ordinal street name and AVE",
    text: "@@ALERT F251124001 ROSE1 RESCC1 PERSON TRAPPED IN LIFT 22 3RD AVE ROSEBUD /POINT NEPEAN RD M 170 E5 (255789) CROSE [ROSE]",
    expected: read({
      primary_address: "22 3RD AVE, ROSEBUD",
      street: "22 3RD AVE",
      suburb: "ROSEBUD",
      cross_streets: ["POINT NEPEAN RD"],
      map_reference: "M 170 E5",
      grid_reference: "255789",
      has_mappable_address: true,
      directions_url: maps("22 3RD AVE, ROSEBUD, VIC, Australia"),
    }),
  },
  {
    what: "a LANE with a lettered house number",
    text: "@@ALERT F251125001 MELB1 ALARC1 AFA 12A HOSIER LANE MELBOURNE /FLINDERS ST M 2F C6 (321654) AFRV [MELB]",
    expected: read({
      primary_address: "12A HOSIER LANE, MELBOURNE",
      street: "12A HOSIER LANE",
      suburb: "MELBOURNE",
      cross_streets: ["FLINDERS ST"],
      map_reference: "M 2F C6",
      grid_reference: "321654",
      has_mappable_address: true,
      directions_url: maps("12A HOSIER LANE, MELBOURNE, VIC, Australia"),
    }),
  },
  {
    what: "a LOT number on a rural road",
    text: "@@ALERT F251122100 ROMS1 G&SC1 HAYSHED FIRE LOT 3 SPRINGFIELD RD ROMSEY /MELBOURNE-LANCEFIELD RD SVC 6609 A7 (700122) CROMS [ROMS]",
    expected: read({
      primary_address: "LOT 3 SPRINGFIELD RD, ROMSEY",
      street: "LOT 3 SPRINGFIELD RD",
      suburb: "ROMSEY",
      cross_streets: ["MELBOURNE-LANCEFIELD RD"],
      map_reference: "SVC 6609 A7",
      grid_reference: "700122",
      has_mappable_address: true,
      directions_url: maps("LOT 3 SPRINGFIELD RD, ROMSEY, VIC, Australia"),
    }),
  },
  {
    what: "a slash inside the free text is skipped when nothing before it looks like a street",
    text: "@@ALERT F251121007 BOXH1 ALARC1 AFA / SPRINKLER FLOW 1000 WHITEHORSE RD BOX HILL /STATION ST //NELSON RD M 47 A10 (356120) AFRV [BOXH]",
    expected: read({
      primary_address: "1000 WHITEHORSE RD, BOX HILL",
      street: "1000 WHITEHORSE RD",
      suburb: "BOX HILL",
      cross_streets: ["STATION ST", "NELSON RD"],
      map_reference: "M 47 A10",
      grid_reference: "356120",
      has_mappable_address: true,
      directions_url: maps("1000 WHITEHORSE RD, BOX HILL, VIC, Australia"),
    }),
  },
  {
    what: "a grid reference alone closes the suburb when there is no map reference",
    text: "@@ALERT F251126014 BRAV2 STRUC1 SHED FIRE 14 EXAMPLE RD SOMEVILLE (512345) CBRAV [BRAV]",
    expected: read({
      primary_address: "14 EXAMPLE RD, SOMEVILLE",
      street: "14 EXAMPLE RD",
      suburb: "SOMEVILLE",
      grid_reference: "512345",
      has_mappable_address: true,
      directions_url: maps("14 EXAMPLE RD, SOMEVILLE, VIC, Australia"),
    }),
  },
  {
    what: "an administrative QD message has no address",
    text: "QDCFA D14 - ALL BRIGADES TEST PAGE 1900 HRS",
    expected: NOTHING,
  },
  {
    what: "a TIMEUPDATE message has no address",
    text: "@@ALERT F251108123 TIMEUPDATE CBRAV ONSCENE 1432HRS",
    expected: NOTHING,
  },
  {
    what: "only a map and grid reference",
    text: "@@ALERT F251117002 WERR1 G&SC1 GRASS FIRE SMOKE SIGHTED SVC 6625 B4 (554321) CWERR [WERR]",
    expected: read({ map_reference: "SVC 6625 B4", grid_reference: "554321" }),
  },
  {
    what: "an Hb copy whose street has no suburb before the map reference",
    text: "HbCFA2 NOSTC1 BURN OFF 3 SAMPLE LANE SVNE 8352 D8 F251108124",
    expected: read({ map_reference: "SVNE 8352 D8" }),
  },
  {
    what: "a street with cross streets but no suburb",
    text: "@@ALERT F251121099 BRAV2 STRUC1 SHED FIRE 14 EXAMPLE RD /FIRST ST //SECOND AV M 45 C7 (512345) CBRAV [BRAV]",
    expected: read({ map_reference: "M 45 C7", grid_reference: "512345" }),
  },
  {
    what: "free text and street name that cannot be told apart (no house number)",
    text: "@@ALERT S251122003 SES VICSES TREE BLOCKING ROAD OLD COACH RD BELGRAVE /MONBULK RD M 75 H8 [BELS]",
    expected: read({ map_reference: "M 75 H8" }),
  },
  {
    what: "a street without cross streets, map or grid reference (suburb cannot be delimited)",
    text: "@@ALERT F251126013 BRAV2 G&SC1 GRASS FIRE 14 EXAMPLE RD SOMEVILLE",
    expected: NOTHING,
  },
];

describe("extractAddress on realistic messages", () => {
  it("has at least 25 messages", () => {
    expect(MESSAGES.length).toBeGreaterThanOrEqual(25);
  });

  for (const { what, text, expected } of MESSAGES) {
    it(what, () => {
      expect(extractAddress(text)).toEqual(expected);
    });
  }
});

describe("extractAddress rules", () => {
  const EXAMPLE =
    "@@ALERT F251108123 BRAV2 STRUC1 SHED FIRE 14 EXAMPLE RD SOMEVILLE /FIRST ST //SECOND AV M 45 C7 (512345) CBRAV CNEIG [BRAV]";

  it("reads the same address with or without the network prefix, in any case", () => {
    const withPrefix = extractAddress(EXAMPLE);
    expect(extractAddress(EXAMPLE.slice(2))).toEqual(withPrefix);
    expect(extractAddress(EXAMPLE.toLowerCase())).toEqual(withPrefix);
    expect(withPrefix.primary_address).toBe("14 EXAMPLE RD, SOMEVILLE");
  });

  it("gives up when a slash in the free text follows something that looks like a street", () => {
    const text =
      "@@ALERT F251126004 BRAV2 RESCC1 CAR OFF RD / ROLLOVER 14 EXAMPLE RD SOMEVILLE /FIRST ST M 45 C7";
    expect(extractAddress(text)).toEqual(read({ map_reference: "M 45 C7" }));
  });

  it("gives up when words other than a suburb follow the street", () => {
    const text = "@@ALERT F251126007 BRAV2 STRUC1 SHED FIRE 14 EXAMPLE RD SOMEVILLE REAR /FIRST ST M 45 C7";
    expect(extractAddress(text)).toEqual(read({ map_reference: "M 45 C7" }));
  });

  it("gives up on CNR that is not followed by an intersection and suburb", () => {
    expect(
      extractAddress(
        "@@ALERT F251126009 BRAV2 STRUC1 CAR FIRE CNR OF CARPARK 14 EXAMPLE RD SOMEVILLE /FIRST ST M 45 C7",
      ),
    ).toEqual(read({ map_reference: "M 45 C7" }));
    expect(
      extractAddress("@@ALERT F251126010 BRAV2 RESCC1 MVA CNR MAIN RD/HIGH ST /FIRST ST M 45 C7"),
    ).toEqual(read({ map_reference: "M 45 C7" }));
  });

  it("keeps a street name that follows a description word (KM, FROM) but not the description", () => {
    const result = extractAddress(
      "@@ALERT F251126012 BRAV2 G&SC1 GRASS FIRE 2 KM FROM MAIN RD SOMEVILLE /FIRST ST M 45 C7",
    );
    expect(result.street).toBe("MAIN RD");
    expect(result.suburb).toBe("SOMEVILLE");
  });

  it("keeps the directional suffix NTH with the street, not the suburb", () => {
    const result = extractAddress(
      "@@ALERT F251126015 BALL1 G&SC1 GRASS FIRE 14 LYDIARD ST NTH SOMEVILLE /FIRST ST M 45 C7",
    );
    expect(result.street).toBe("14 LYDIARD ST NTH");
    expect(result.suburb).toBe("SOMEVILLE");
  });

  it("reads coordinates with spaces around the numbers", () => {
    const result = extractAddress("@@ALERT E25110812347 AMBULANCE ASSIST CFA LAT/LON: -37.290 , 144.420");
    expect([result.latitude, result.longitude, result.has_mappable_address]).toEqual([-37.29, 144.42, true]);
  });

  it("drops a longitude out of range", () => {
    const result = extractAddress("@@ALERT E25110812348 AMBULANCE ASSIST CFA LAT/LON:-37.29, 194.42");
    expect([result.latitude, result.longitude, result.has_mappable_address]).toEqual([null, null, false]);
  });

  it("does not guess where free text ends and a saint's street name begins", () => {
    const text = "@@ALERT F251126020 BRAV2 ALARC1 CHURCH HALL ST MARYS LANE SOMEVILLE /FIRST ST M 45 C7";
    expect(extractAddress(text)).toEqual(read({ map_reference: "M 45 C7" }));
  });

  it("does not trust a name of four words or more without a house number", () => {
    const text =
      "@@ALERT F251126021 BRAV2 G&SC1 GRASS FIRE NEAR OLD BLUE GUM TREE RD SOMEVILLE /FIRST ST M 45 C7";
    expect(extractAddress(text)).toEqual(read({ map_reference: "M 45 C7" }));
  });

  it("does not take five words for a suburb", () => {
    const text =
      "@@ALERT F251126022 BRAV2 STRUC1 SHED FIRE 14 EXAMPLE RD BIG OLD RED BARN SOMEVILLE /FIRST ST M 45 C7";
    expect(extractAddress(text)).toEqual(read({ map_reference: "M 45 C7" }));
  });

  it("gives up when two streets could end before the suburb", () => {
    const text =
      "@@ALERT F251126023 BRAV2 STRUC1 SHED FIRE 14 MAIN RD HIGH STREET SOMEVILLE /FIRST ST M 45 C7";
    expect(extractAddress(text)).toEqual(read({ map_reference: "M 45 C7" }));
    const offRoad = "@@ALERT F251126025 BRAV2 RESCC1 CAR OFF RD MAIN RD SOMEVILLE /FIRST ST M 45 C7";
    expect(extractAddress(offRoad)).toEqual(read({ map_reference: "M 45 C7" }));
  });

  it("gives up on two readings: a full type word could end the street or belong to it", () => {
    const text =
      "@@ALERT F251126026 BRAV2 STRUC1 SHED FIRE 14 SMITH STREET OCEAN GROVE NORTH /FIRST ST M 45 C7";
    expect(extractAddress(text)).toEqual(read({ map_reference: "M 45 C7" }));
  });

  it("does not trust a name holding a full type word without a house number", () => {
    const text =
      "@@ALERT S251126027 SES VICSES TREE DOWN BLOCKING ROAD MAIN RD BELGRAVE /MONBULK RD M 75 H8 [BELS]";
    expect(extractAddress(text)).toEqual(read({ map_reference: "M 75 H8" }));
  });

  it("does not reach past four name words for a house number", () => {
    const text =
      "@@ALERT F251126028 BRAV2 STRUC1 FIRE ON LEVEL 2 EAST WING STAFF KITCHEN MILL RD SOMEVILLE M 45 C7";
    expect(extractAddress(text)).toEqual(read({ map_reference: "M 45 C7" }));
  });

  it("accepts a full type word at the start of a numbered street name", () => {
    const result = extractAddress(
      "@@ALERT F251126024 BRAV2 STRUC1 SHED FIRE 14 CIRCUIT RD SOMEVILLE M 45 C7",
    );
    expect(result.primary_address).toBe("14 CIRCUIT RD, SOMEVILLE");
  });

  it("keeps a cross street without type only when the paged unit or a reference closes it", () => {
    const closed =
      "@@ALERT S251123458 SES VICSES ROOF DAMAGE 5 RIVER ST MAFFRA /JOHNSON ST //THE MALL [MAFS]";
    expect(extractAddress(closed).cross_streets).toEqual(["JOHNSON ST", "THE MALL"]);
    const open = "@@ALERT S251123459 SES VICSES ROOF DAMAGE 5 RIVER ST MAFFRA /JOHNSON ST //THE MALL CMAFF";
    expect(extractAddress(open).cross_streets).toEqual(["JOHNSON ST"]);
  });

  it("handles empty text", () => {
    expect(extractAddress("")).toEqual(NOTHING);
  });
});

describe("extractAddress with a locality list", () => {
  const localities = buildLocalityIndex(
    [
      "Kangaroo Flat",
      "Kangaroo Ground",
      "Golden Square",
      "Bridgewater On Loddon",
      "Bridgewater",
      "Ravenswood",
      "Harcourt",
      "Ballarat Central",
      "Bendigo",
      "East Bendigo",
      "Mount Clear",
      "Melbourne",
    ]
      .map((name) => ({ name, state: "VIC" }))
      .concat([
        { name: "Albury", state: "NSW" },
        { name: "Ravenswood", state: "QLD" },
      ]),
  );
  const read = (text: string) => extractAddress(text, localities);

  it("reads a suburb holding a word the shape rules reject (FLAT, SQUARE)", () => {
    expect(
      read(
        "@@ALERT F251201001 KANG1 STRUC1 HOUSE FIRE 105 HIGH ST KANGAROO FLAT /OLYMPIC PDE SVC 7785 J10 (471230) CKANG [KANG]",
      ),
    ).toMatchObject({
      primary_address: "105 HIGH ST, KANGAROO FLAT",
      cross_streets: ["OLYMPIC PDE"],
      directions_url: maps("105 HIGH ST, KANGAROO FLAT, VIC, Australia"),
    });
    expect(
      read(
        "HbCGOLD - ALARC1 SMOKE ALARM OPERATING 22 UNDERWOOD ST GOLDEN SQUARE SVC 7785 K8 (472219) F251201002",
      ).primary_address,
    ).toBe("22 UNDERWOOD ST, GOLDEN SQUARE");
  });

  it("reads the longest locality: BRIDGEWATER ON LODDON, not BRIDGEWATER", () => {
    const result = read(
      "@@ALERT F251201003 BRID1 G&SC1 GRASS FIRE 45 MAIN ST BRIDGEWATER ON LODDON /LODDON VALLEY HWY SVVB 7603 C4 [BRID]",
    );
    expect([result.street, result.suburb]).toEqual(["45 MAIN ST", "BRIDGEWATER ON LODDON"]);
  });

  it("reads a known highway with only a town after it, leaving the free text out", () => {
    const result = read(
      "@@ALERT F251201004 RAVE1 RESCC1 CAR VS TREE CALDER HWY RAVENSWOOD /MANDURANG SOUTH RD SVVB 7706 H2 [RAVE]",
    );
    expect(result.primary_address).toBe("CALDER HWY, RAVENSWOOD");
  });

  it("reads a corner whose second or first road is a route number", () => {
    expect(
      read(
        "@@ALERT F251201007 HARC1 RESCC1 MVA CNR MAIN RD/C287 HARCOURT SVVB 7707 A3 (662100) CHARC [HARC]",
      ),
    ).toMatchObject({
      primary_address: "CNR MAIN RD / C287, HARCOURT",
      directions_url: maps("MAIN RD & C287, HARCOURT, VIC, Australia"),
    });
    expect(
      read("@@ALERT F251201008 HARC1 RESCC1 MVA CNR C287 / MAIN RD HARCOURT SVVB 7707 A3 [HARC]")
        .primary_address,
    ).toBe("CNR C287 / MAIN RD, HARCOURT");
  });

  it("keeps a street-direction suffix (N, S, E, W) with the street, not the suburb", () => {
    const south = read(
      "@@ALERT F251201009 BALL1 ALARC1 AFA 14 LYDIARD ST S BALLARAT CENTRAL /DANA ST SVC 6228 E4 [BALL]",
    );
    expect([south.street, south.suburb]).toEqual(["14 LYDIARD ST S", "BALLARAT CENTRAL"]);
    const corner = read(
      "@@ALERT F251201118 BALL1 RESCC1 CAR V TREE CNR STURT ST/DAWSON ST S BALLARAT CENTRAL SVC 6228 E3 [BALL]",
    );
    expect(corner.primary_address).toBe("CNR STURT ST / DAWSON ST S, BALLARAT CENTRAL");
  });

  it("reads the word shape's suffix S as a suffix even without a list", () => {
    expect(
      extractAddress("@@ALERT F251201010 BALL1 ALARC1 AFA 14 LYDIARD ST S SOMEVILLE /DANA ST M 45 C7").suburb,
    ).toBe("SOMEVILLE");
  });

  it("takes a compass word for the suburb's when that makes a locality, else for the street's", () => {
    expect(
      read(
        "@@ALERT F251201130 EBEN1 G&SC1 GRASS FIRE 14 MAIN RD EAST BENDIGO /HOSPITAL ST SVVB 7705 K9 [EBEN]",
      ).primary_address,
    ).toBe("14 MAIN RD, EAST BENDIGO");
    expect(
      read(
        "@@ALERT F251201131 BEND1 G&SC1 GRASS FIRE 14 MAIN RD WEST BENDIGO /HOSPITAL ST SVVB 7705 K9 [BEND]",
      ).primary_address,
    ).toBe("14 MAIN RD WEST, BENDIGO");
  });

  it("reads a suburb closed only by the paged unit or the end of the text", () => {
    expect(
      read("@@ALERT S251201201 SES VICSES TREE DOWN 22 UNDERWOOD ST GOLDEN SQUARE [SESBEND]").primary_address,
    ).toBe("22 UNDERWOOD ST, GOLDEN SQUARE");
    expect(read("@@ALERT S251201206 SES VICSES ANIMAL RESCUE 40 CREEK RD BENDIGO").primary_address).toBe(
      "40 CREEK RD, BENDIGO",
    );
    // Unit codes after the suburb: where the suburb ends cannot be told, so no link.
    expect(
      read("@@ALERT S251201207 SES VICSES TREE DOWN 22 UNDERWOOD ST GOLDEN SQUARE CGOLD").directions_url,
    ).toBeNull();
  });

  it("gives no link for a suburb that is not a known locality", () => {
    const result = read(
      "@@ALERT F251108123 BRAV2 STRUC1 SHED FIRE 14 EXAMPLE RD SOMEVILLE /FIRST ST M 45 C7 (512345) CBRAV [BRAV]",
    );
    expect(result).toMatchObject({
      primary_address: null,
      has_mappable_address: false,
      directions_url: null,
      map_reference: "M 45 C7",
    });
  });

  it("gives no link when words other than a locality follow the street", () => {
    expect(
      read("@@ALERT F251201011 KANG1 STRUC1 SHED FIRE 14 HIGH ST KANGAROO FLAT REAR /FIRST ST M 45 C7")
        .directions_url,
    ).toBeNull();
  });

  it("finds a MOUNT locality written MT", () => {
    expect(
      read("@@ALERT F251201337 MTCL1 G&SC1 GRASS FIRE 5 MT CLEAR RD MT CLEAR /GEELONG RD SVC 6228 F8 [MTCL]")
        .primary_address,
    ).toBe("5 MT CLEAR RD, MT CLEAR");
  });

  it("links a locality of another state to that state, and a shared name to VIC", () => {
    expect(
      read("@@ALERT F251201129 WODO1 STRUC1 HOUSE FIRE 50 DEAN ST ALBURY /KIEWA ST SVNE 8325 A9 [WODO]")
        .directions_url,
    ).toBe(maps("50 DEAN ST, ALBURY, NSW, Australia"));
    expect(
      read("@@ALERT F251201004 RAVE1 G&SC1 GRASS FIRE 2 MAIN RD RAVENSWOOD /FIRST ST SVVB 7706 H2")
        .directions_url,
    ).toBe(maps("2 MAIN RD, RAVENSWOOD, VIC, Australia"));
  });

  it("still reads coordinates and nothing else from pages without an address", () => {
    expect(read("@@ALERT E25120112345 AMBULANCE ASSIST CFA LAT/LON:-36.78, 144.25").directions_url).toBe(
      `${MAPS}-36.78%2C144.25`,
    );
    expect(read("@@ALERT F251201342 KANG1 TIMEUPDATE CKANG ONSCENE 1432HRS")).toEqual(NOTHING);
    expect(read("QDCFA D2 - ALL BRIGADES TEST PAGE 1900 HRS")).toEqual(NOTHING);
  });
});

describe("directionsUrl", () => {
  it("encodes the address, state and country into a Google Maps directions link", () => {
    expect(
      directionsUrl({ primary_address: "3/14 ERROL ST, NORTH MELBOURNE", latitude: null, longitude: null }),
    ).toBe(`${MAPS}3%2F14%20ERROL%20ST%2C%20NORTH%20MELBOURNE%2C%20VIC%2C%20Australia`);
  });

  it("uses the given state", () => {
    expect(
      directionsUrl({ primary_address: "1 GEORGE ST, SYDNEY", latitude: null, longitude: null }, "NSW"),
    ).toBe(`${MAPS}1%20GEORGE%20ST%2C%20SYDNEY%2C%20NSW%2C%20Australia`);
  });

  it("prefers coordinates over the address", () => {
    expect(
      directionsUrl({ primary_address: "14 EXAMPLE RD, SOMEVILLE", latitude: -37.29, longitude: 144.42 }),
    ).toBe(`${MAPS}-37.29%2C144.42`);
  });

  it("falls back to the address when the coordinates are out of range or incomplete", () => {
    const address = `${MAPS}14%20EXAMPLE%20RD%2C%20SOMEVILLE%2C%20VIC%2C%20Australia`;
    expect(
      directionsUrl({ primary_address: "14 EXAMPLE RD, SOMEVILLE", latitude: -97, longitude: 144.42 }),
    ).toBe(address);
    expect(
      directionsUrl({ primary_address: "14 EXAMPLE RD, SOMEVILLE", latitude: -37.29, longitude: null }),
    ).toBe(address);
  });

  it("writes an intersection as 'A & B' with the ampersand encoded", () => {
    expect(
      directionsUrl({ primary_address: "CNR MAIN ST / HIGH ST, SOMEVILLE", latitude: null, longitude: null }),
    ).toBe(`${MAPS}MAIN%20ST%20%26%20HIGH%20ST%2C%20SOMEVILLE%2C%20VIC%2C%20Australia`);
  });

  it("is null when there is neither an address nor coordinates", () => {
    expect(directionsUrl({ primary_address: null, latitude: null, longitude: null })).toBeNull();
    expect(directionsUrl({ primary_address: "   ", latitude: null, longitude: null })).toBeNull();
  });
});
