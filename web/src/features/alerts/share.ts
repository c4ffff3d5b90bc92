import { buildShareText } from "@turnout/domain";
import { type Alert, alertTime } from "../../api/alerts";

export type ShareOutcome = "shared" | "copied" | "cancelled" | "failed";

/** Copy for browsers without the async clipboard (plain-HTTP origins): a hidden field and 'copy'. */
function copyWithSelection(text: string): boolean {
  const field = document.createElement("textarea");
  field.value = text;
  field.setAttribute("readonly", "");
  field.style.position = "fixed";
  field.style.opacity = "0";
  document.body.appendChild(field);
  field.select();
  try {
    return document.execCommand("copy");
  } catch {
    return false;
  } finally {
    field.remove();
  }
}

/**
 * Shares an alert with the Web Share API where there is one; otherwise (or when sharing fails for
 * any reason but the user cancelling) copies the SPEC 9 share text to the clipboard.
 */
export async function shareAlert(alert: Alert): Promise<ShareOutcome> {
  const { title, text } = buildShareText({ ...alert, sent_at: alertTime(alert) });
  if (typeof navigator.share === "function") {
    try {
      await navigator.share({ title, text });
      return "shared";
    } catch (error) {
      if (error instanceof DOMException && error.name === "AbortError") return "cancelled";
    }
  }
  try {
    if (!navigator.clipboard?.writeText) throw new Error("no async clipboard");
    await navigator.clipboard.writeText(text);
    return "copied";
  } catch {
    return copyWithSelection(text) ? "copied" : "failed";
  }
}
