/** What a figure that does not apply, or that the server did not send, reads as. */
export const NOT_AVAILABLE = "n/a";

const BYTE_UNITS = ["B", "KB", "MB", "GB", "TB"];

/** 1536 -> "1.5 KB" (binary steps, one decimal from KB up). */
export function formatBytes(bytes: number | null): string {
  if (bytes === null || bytes < 0) return NOT_AVAILABLE;
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < BYTE_UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${value} B` : `${value.toFixed(1)} ${BYTE_UNITS[unit]}`;
}
