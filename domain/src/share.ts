import { detectMessageType, displayText, typePresentation } from "./message.js";
import { formatDateTime } from "./time.js";

/**
 * Builds the share title and text: '<Type> Alert - <agency> - <area>', then the time and date it was
 * paged (`sent_at`, the time the feed shows), then the message.
 */
export function buildShareText(
  alert: {
    type?: string | null;
    agency_name?: string | null;
    area?: string | null;
    message: string;
    sent_at: string | Date;
  },
  options: { timeZone?: string } = {},
): { title: string; text: string } {
  const type = alert.type?.trim() ? alert.type : detectMessageType(alert.message);
  const parts = [`${typePresentation(type).label} Alert`];
  const agency = alert.agency_name?.trim();
  if (agency) parts.push(agency);
  const area = alert.area?.trim();
  if (area) parts.push(area);
  const title = parts.join(" - ");
  const when = formatDateTime(alert.sent_at, options.timeZone);
  const text = [title, when, displayText(alert.message)].filter((line) => line !== "").join("\n");
  return { title, text };
}
