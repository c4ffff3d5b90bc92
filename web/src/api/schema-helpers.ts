import { z } from "zod/mini";

type Primitive = string | number | boolean | null;

/** A field the server may leave out or send as null, read as `fallback` then. */
export const orElse = <T extends z.ZodMiniType, D extends Primitive>(schema: T, fallback: D) =>
  z.pipe(
    z.nullish(schema),
    z.transform((value: z.output<T> | null | undefined) => value ?? fallback),
  );

/** A list the server may leave out or send as null, read as a new empty list then. */
export const orEmpty = <T extends z.ZodMiniArray>(schema: T) =>
  z.pipe(
    z.nullish(schema),
    z.transform((value: z.output<T> | null | undefined) => value ?? ([] as z.output<T>)),
  );
