// Plausible requests for any route, read from its zod schemas: the route-table tests (route-table.test.ts,
// redis-outage.test.ts) call every route with them, so a route added later is covered too.

/** The route's URL with each `:param` (and a `*` wildcard) replaced by `value`. */
export function fill(url: string, value: string): string {
  return url.replace(/:[A-Za-z_]+/g, value).replace(/\*$/, value);
}

export const hasParams = (url: string) => /:[A-Za-z_]+|\*$/.test(url);

// ---------------------------------------------------------------------------------------------------
// Values that fit a zod schema well enough to get past the other fields, so each bad value is tested
// on its own. Reads zod's own definitions (`_zod.def`).
// ---------------------------------------------------------------------------------------------------

type ZodLike = { _zod: { def: Record<string, unknown> & { type: string } } };
const isZod = (v: unknown): v is ZodLike =>
  typeof v === "object" && v !== null && "_zod" in v && typeof (v as ZodLike)._zod?.def?.type === "string";

const SAMPLE_STRINGS: [RegExp, string][] = [
  [/phone/i, "0412345678"],
  [/capcode|address/i, "1234567"],
  [/code$/i, "123456"],
  [/postcode/i, "3550"],
  [/datetime|timestamp/i, new Date().toISOString()],
  [/session/i, "00000000-0000-4000-8000-000000000000"],
];

export function sample(schema: unknown, key = ""): unknown {
  if (!isZod(schema)) return "test";
  const def = schema._zod.def;
  switch (def.type) {
    case "optional":
    case "nullable":
    case "default":
    case "prefault":
    case "readonly":
    case "catch":
      return sample(def.innerType, key);
    case "pipe":
      return sample(def.in, key);
    case "union":
      return sample((def.options as unknown[])[0], key);
    case "object":
      return Object.fromEntries(
        Object.entries(def.shape as Record<string, unknown>).map(([k, v]) => [k, sample(v, k)]),
      );
    case "array":
      return [sample(def.element, key)];
    case "enum":
      return Object.values(def.entries as Record<string, unknown>)[0];
    case "literal":
      return (def.values as unknown[])[0];
    case "number":
    case "int":
      return 1;
    case "boolean":
      return true;
    case "string":
      return SAMPLE_STRINGS.find(([re]) => re.test(key))?.[1] ?? "test";
    default:
      return "test";
  }
}

/** The field names of an object schema (through optional/pipe/union wrappers), or none. */
export function fieldsOf(schema: unknown): string[] {
  if (!isZod(schema)) return [];
  const def = schema._zod.def;
  if (def.type === "object") return Object.keys(def.shape as object);
  if (["optional", "nullable", "default"].includes(def.type)) return fieldsOf(def.innerType);
  if (def.type === "pipe") return fieldsOf(def.in);
  if (def.type === "union") return [...new Set((def.options as unknown[]).flatMap(fieldsOf))];
  return [];
}
