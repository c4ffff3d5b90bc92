import { getTableColumns, type InferSelectModel, type Table } from "drizzle-orm";

/**
 * A table row as drizzle's own queries return it, from the row as PostgreSQL's `to_jsonb(row)` writes
 * it (column names as keys, timestamps as ISO text): each column's value goes through the same mapping
 * drizzle applies to driver values. For rows a database function returns inside a JSON document.
 */
export function rowFromJson<T extends Table>(table: T, json: Record<string, unknown>): InferSelectModel<T> {
  const row: Record<string, unknown> = {};
  for (const [key, column] of Object.entries(getTableColumns(table))) {
    const value = json[column.name];
    row[key] = value === null || value === undefined ? null : column.mapFromDriverValue(value);
  }
  return row as InferSelectModel<T>;
}

/** The rows of a raw `db.execute`, typed: both drivers answer `{ rows }`. */
export function rowsOf<T>(result: unknown): T[] {
  return (result as { rows: T[] }).rows;
}

/** A json or jsonb value from a raw `db.execute`, whether the driver parsed it or left it as text. */
export function jsonValue<T>(value: unknown): T {
  return (typeof value === "string" ? JSON.parse(value) : value) as T;
}

/**
 * A PostgreSQL array literal ('{"a","b"}', '{1,2}') of a list, to pass as one parameter (cast it:
 * `${arrayLiteral(ids)}::int[]`) however long the list.
 */
export function arrayLiteral(items: readonly (string | number)[]): string {
  return `{${items.map((item) => (typeof item === "number" ? String(item) : `"${item.replace(/[\\"]/g, "\\$&")}"`)).join(",")}}`;
}
