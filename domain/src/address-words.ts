// The words and token shapes of Victorian pager addresses that extractAddress (address.ts) reads by.

/** The set of the whitespace-separated words of a list. */
const wordSet = (list: string): Set<string> => new Set(list.trim().split(/\s+/));

/** Street-type abbreviations used in Victorian pager text; they end a street name and never appear inside one. */
export const TYPE_ABBREVIATIONS = wordSet(`
  RD ST AV AVE DR CT CRT CR CRES CRS PDE HWY FWY LA LN PL TCE BVD BLVD GR GV CL CCT ESP TRK TRL SQ
  PKWY PWY WK BND GDNS HTS
`);

/** Street types written in full; they may also appear inside a name ("HIGH STREET RD"). */
export const TYPE_WORDS = wordSet(`
  ROAD STREET AVENUE DRIVE COURT CRESCENT PARADE HIGHWAY FREEWAY LANE PLACE TERRACE BOULEVARD GROVE
  CLOSE CIRCUIT ESPLANADE TRACK TRAIL RISE SQUARE PARKWAY LOOP WAY WALK BEND
`);

/** Words of incident descriptions and message headers that are not part of a street name or suburb. */
export const STOP_WORDS = wordSet(`
  ALERT SES VICSES CFA FRV MFB AMBULANCE TIMEUPDATE RESPOND RESPONSE FIRE FIRES ALARM ALARMS AFA
  SMOKE SMOKING ALIGHT FLAMES BURNING BURNOFF TRAPPED COLLISION ACCIDENT MVA RTA V VS INTO OFF ON AT
  IN NEAR OPP OPPOSITE REAR BEHIND OUTSIDE INSIDE DOWN FALLEN POWERLINES ASSIST ASSISTANCE REQUEST
  REQUESTED REQUIRED LEAK LEAKING SPILL PERSON PERSONS PATIENT INJURED DAMAGE DAMAGED CAR CARS
  VEHICLE VEHICLES TRUCK SHED RUBBISH APPROX KM KMS METRES MTRS FROM CNR UNIT FLAT SHOP LOT HOUSES
  DETECTOR SIGHTING SIGHTED REPORTED REPORTS WIRES ROOF PADDOCK HOUSE BUILDING FACTORY
`);

/** Directional suffixes written after a street type ("LYDIARD ST NTH", "MAIN ST S"); never a suburb. */
export const STREET_SUFFIXES = wordSet("NTH STH N S E W");

/** Compass words that may end a street ("MAIN RD EAST") or start a suburb ("EAST MELBOURNE"). */
export const COMPASS_WORDS = wordSet("NORTH SOUTH EAST WEST");

/**
 * Victorian highway and freeway names: without a house number, free text may run into the name
 * ("CAR VS TREE CALDER HWY"), so a known name is taken whole and nothing to its left.
 */
export const HIGHWAYS: readonly string[][] = [
  "BASS",
  "BELLARINE",
  "BONANG",
  "BORUNG",
  "CALDER",
  "CALDER ALTERNATIVE",
  "CASTERTON",
  "COPPIN",
  "EASTERN",
  "GEELONG",
  "GLENELG",
  "GOULBURN VALLEY",
  "GREAT ALPINE",
  "HAMILTON",
  "HENTY",
  "HUME",
  "KIEWA VALLEY",
  "LODDON VALLEY",
  "MAROONDAH",
  "MCIVOR",
  "MELBA",
  "MIDLAND",
  "MONARO",
  "MONASH",
  "MURRAY VALLEY",
  "NEPEAN",
  "NORTHERN",
  "OMEO",
  "OVENS",
  "PENINSULA LINK",
  "PRINCES",
  "PYRENEES",
  "SOUTH GIPPSLAND",
  "STRZELECKI",
  "SUNRAYSIA",
  "TULLAMARINE",
  "WARBURTON",
  "WEST GATE",
  "WESTGATE",
  "WESTERN",
  "WIMMERA",
].map((name) => name.split(" "));
export const HIGHWAY_TYPES = wordSet("HWY HIGHWAY FWY FREEWAY");

/** A road's route number ("C287", "M1", "A300", "B160"), which may stand for its name in a corner. */
export const ROUTE_NUMBER = /^[ABCM]\d{1,3}$/;

/** Words that introduce a unit or lot number before a house number. */
export const UNIT_WORDS = new Set(["UNIT", "FLAT", "SHOP", "LOT"]);

/** One upper-case word (letters, apostrophes and hyphens inside). */
export const WORD = /^[A-Z](?:[A-Z'-]*[A-Z])?$/;
const ORDINAL = /^\d{1,3}(?:ST|ND|RD|TH)$/;
// 14, 14A, 12-14, 3/14, 3/12-14
export const HOUSE_NUMBER = /^(?:\d{1,5}[A-Z]?\/)?\d{1,5}[A-Z]?(?:-\d{1,5}[A-Z]?)?$/;
/** A unit number written as one token ("U3", "U12A"). */
export const UNIT_TOKEN = /^U\d{1,4}[A-Z]?$/;
/** A plain number, as after a unit word ("UNIT 3"). */
export const SHORT_NUMBER = /^\d{1,5}[A-Z]?$/;

/** A street type, abbreviated or in full. */
export const isType = (token: string | undefined): boolean =>
  token !== undefined && (TYPE_ABBREVIATIONS.has(token) || TYPE_WORDS.has(token));

/** A word that can be part of a street name (not its type); "ST" (saint) is handled by the caller. */
export const isNameWord = (token: string): boolean =>
  (WORD.test(token) || ORDINAL.test(token)) && !STOP_WORDS.has(token) && !TYPE_ABBREVIATIONS.has(token);

/** A token that marks where a name without house number starts; another street's type ("RD") does not. */
export const isBarrier = (token: string): boolean =>
  (/\d/.test(token) || !WORD.test(token) || STOP_WORDS.has(token)) && !TYPE_ABBREVIATIONS.has(token);
