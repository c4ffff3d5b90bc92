import { formatDateTime } from "@turnout/domain";
import { NOT_AVAILABLE } from "../../../ui/format-bytes";

/** A duration in milliseconds as days, hours and minutes: "3d 4h 12m", "5m", "40s". */
export function formatDuration(ms: number | null): string {
  if (ms === null || ms < 0) return NOT_AVAILABLE;
  const totalSeconds = Math.floor(ms / 1000);
  if (totalSeconds < 60) return `${totalSeconds}s`;
  const days = Math.floor(totalSeconds / 86_400);
  const hours = Math.floor((totalSeconds % 86_400) / 3600);
  const minutes = Math.floor((totalSeconds % 3600) / 60);
  return [days ? `${days}d` : "", days || hours ? `${hours}h` : "", `${minutes}m`].filter(Boolean).join(" ");
}

/** A percentage to one decimal: 42.345 -> "42.3%". */
export function formatPercent(value: number | null): string {
  return value === null ? NOT_AVAILABLE : `${Math.round(value * 10) / 10}%`;
}

/** A count with thousands separators. */
export function formatCount(value: number | null): string {
  if (value === null) return NOT_AVAILABLE;
  return (Math.round(value * 10) / 10).toLocaleString("en-AU");
}

/** A time in milliseconds: "12 ms"; under one, "0.4 ms". */
export function formatMs(value: number | null): string {
  if (value === null) return NOT_AVAILABLE;
  return value < 1 ? `${Math.round(value * 10) / 10} ms` : `${Math.round(value)} ms`;
}

/** An ISO time as local date and time, or n/a. */
export function formatWhen(iso: string | null): string {
  if (!iso) return NOT_AVAILABLE;
  const time = Date.parse(iso);
  return Number.isNaN(time) ? NOT_AVAILABLE : formatDateTime(time);
}

/** Upper-case first letter: "connected" -> "Connected". */
export function capitalise(value: string): string {
  return value.charAt(0).toUpperCase() + value.slice(1);
}
