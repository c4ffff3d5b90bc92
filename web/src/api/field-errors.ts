/**
 * Field errors of a 400 reply by field name. The server sends a list of `{ field: "body.phone",
 * message }`; an object `{ phone: "..." }` is read too.
 */
export function fieldErrorsFrom(body: Record<string, unknown> | undefined): Record<string, string> {
  const fields = body?.fields;
  const result: Record<string, string> = {};
  if (Array.isArray(fields)) {
    for (const item of fields) {
      if (item && typeof item === "object" && "field" in item) {
        const { field, message } = item as { field: unknown; message?: unknown };
        const name = String(field).replace(/^body\./, "");
        result[name] ??= typeof message === "string" ? message : "Invalid value";
      }
    }
  } else if (fields && typeof fields === "object") {
    for (const [field, message] of Object.entries(fields)) {
      result[field] ??= Array.isArray(message) ? String(message[0]) : String(message);
    }
  }
  return result;
}
