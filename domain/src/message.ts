/** The four message types an alert can have. */
export type AlertType = "emergency" | "non-emergency" | "administrative" | "standard";

/** Every alert type, most urgent first. */
export const ALERT_TYPES: readonly AlertType[] = ["emergency", "non-emergency", "administrative", "standard"];

/** Maps a stored or requested type to an AlertType: "admin" means administrative, unknown means standard. */
export function normalizeAlertType(value: string | null | undefined): AlertType {
  const type = (value ?? "").trim().toLowerCase();
  if (type === "admin" || type === "administrative") return "administrative";
  if (type === "emergency" || type === "non-emergency") return type;
  return "standard";
}

/** The Victorian paging-network prefixes and the type each one sets. */
const TYPE_PREFIXES: ReadonlyArray<readonly [prefix: string, type: AlertType]> = [
  ["@@", "emergency"],
  ["Hb", "non-emergency"],
  ["QD", "administrative"],
];

/** Finds the network prefix at the very start of the text (after leading whitespace). */
function matchPrefix(rawText: string): { type: AlertType; rest: string } | null {
  const text = rawText.trimStart();
  for (const [prefix, type] of TYPE_PREFIXES) {
    if (text.startsWith(prefix)) return { type, rest: text.slice(prefix.length) };
  }
  return null;
}

/** Reads the message type from the network prefix: '@@' emergency, 'Hb' non-emergency, 'QD' administrative. */
export function detectMessageType(rawText: string): AlertType {
  return matchPrefix(rawText)?.type ?? "standard";
}

/** The text users see: the network prefix and the whitespace after it removed; other text unchanged. */
export function displayText(rawText: string): string {
  const match = matchPrefix(rawText);
  return match ? match.rest.trimStart() : rawText;
}

/** How one alert type is shown: chip key, label, colour (AA-readable on white and under white text), icon. */
export type TypePresentation = {
  key: "EMERGENCY" | "NON-EMERGENCY" | "ADMIN" | "STANDARD";
  label: string;
  color: string;
  icon: string;
};

/** Presentation of each alert type; icons are Material icon names. */
export const TYPE_PRESENTATION: Record<AlertType, TypePresentation> = {
  emergency: { key: "EMERGENCY", label: "Emergency", color: "#C62828", icon: "Emergency" },
  "non-emergency": {
    key: "NON-EMERGENCY",
    label: "Non-Emergency",
    color: "#B45309",
    icon: "NotificationImportant",
  },
  administrative: { key: "ADMIN", label: "Admin", color: "#1565C0", icon: "Info" },
  standard: { key: "STANDARD", label: "Standard", color: "#546E7A", icon: "Notifications" },
};

/** Presentation for any type value; unknown or missing types get STANDARD. */
export function typePresentation(type: string | null | undefined): TypePresentation {
  return TYPE_PRESENTATION[normalizeAlertType(type)];
}
