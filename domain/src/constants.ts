/** The product's name, shown wherever the spec says "the product name". */
export const PRODUCT_NAME = "Turnout";

/** Prefix of every localStorage / sessionStorage key the product writes. */
export const STORAGE_PREFIX = "turnout_";

/** The storage keys the web app uses, all under STORAGE_PREFIX (SPEC 3 "Stored locally"). */
export const STORAGE_KEYS = {
  token: `${STORAGE_PREFIX}token`,
  user: `${STORAGE_PREFIX}user`,
  agency: `${STORAGE_PREFIX}agency`,
  deviceId: `${STORAGE_PREFIX}device_id`,
  installPreference: `${STORAGE_PREFIX}install_preference`,
  installDismissed: `${STORAGE_PREFIX}install_dismissed`,
  installBannerResetAt: `${STORAGE_PREFIX}install_banner_reset_at`,
  /** When this tab last reloaded because a part of the app failed to load (session storage). */
  loadFailureReloadAt: `${STORAGE_PREFIX}load_failure_reload_at`,
} as const;

/** Every API call is aborted after this many milliseconds. */
export const REQUEST_TIMEOUT_MS = 30_000;
/** The session-ended dialog redirects to /login by itself after this many milliseconds. */
export const SESSION_ENDED_REDIRECT_MS = 5_000;
/** A stored token must have more than this many seconds left to count as a valid session. */
export const TOKEN_MIN_REMAINING_SECONDS = 300;
/** How often the web app re-checks the stored session, in milliseconds. */
export const SESSION_CHECK_INTERVAL_MS = 300_000;

/** Australia's international dialling prefix; phones are stored in this format. */
export const PHONE_COUNTRY_PREFIX = "+61";
/** Number of digits in a one-time login code and in an activation code. */
export const OTP_LENGTH = 6;
/** An activation code stops working this many minutes after it is sent. */
export const ACTIVATION_CODE_EXPIRY_MINUTES = 10;
/** Retry-after used for a rate limit when the server gives none, in seconds. */
export const DEFAULT_RETRY_AFTER_SECONDS = 900;
/** How many device sessions a user may hold unless an admin changes it. */
export const DEFAULT_MAX_DEVICE_SESSIONS = 2;

/** Alerts fetched per page of the alert list. */
export const ALERT_PAGE_SIZE = 50;
/** Largest page of alerts the server hands out. */
export const ALERT_PAGE_SIZE_MAX = 100;
/** The next page loads when the list is within this many pixels of its bottom. */
export const INFINITE_SCROLL_THRESHOLD_PX = 300;
/** Debounce of the infinite-scroll check, in milliseconds. */
export const INFINITE_SCROLL_DEBOUNCE_MS = 50;
/** Default `limit` of GET /alerts/recent. */
export const RECENT_ALERTS_DEFAULT_LIMIT = 20;
/** Default `days` window of GET /alerts/stats/overview. */
export const STATS_DEFAULT_DAYS = 7;
/** An alert-rule preview searches messages of this many past months. */
export const RULE_PREVIEW_MONTHS = 3;
/** The rule list counts triggers within this many past days. */
export const RULE_TRIGGER_WINDOW_DAYS = 30;

/** Pause after typing before a location (suburb) search runs, in milliseconds. */
export const LOCATION_SEARCH_DEBOUNCE_MS = 300;
/** Location input shorter than this many characters does nothing. */
export const LOCATION_SEARCH_MIN_LENGTH = 2;

/** Live-connection (socket) timeout, in milliseconds. */
export const SOCKET_TIMEOUT_MS = 30_000;
/** First live-connection reconnect delay, in milliseconds. */
export const SOCKET_RECONNECT_DELAY_MS = 2_000;
/** Longest live-connection reconnect delay, in milliseconds. */
export const SOCKET_RECONNECT_DELAY_MAX_MS = 10_000;
/** Reconnect attempts before the live connection counts as failed. */
export const SOCKET_RECONNECT_ATTEMPTS = 10;

/** After "Remind Later" the install banner stays hidden this many milliseconds (48 hours). */
export const INSTALL_REMIND_LATER_MS = 48 * 60 * 60 * 1000;
/** How often the web app checks whether it now runs standalone, in milliseconds. */
export const STANDALONE_CHECK_INTERVAL_MS = 1_000;

/** A feedback attachment must be smaller than this many bytes (100 MB). */
export const FEEDBACK_ATTACHMENT_MAX_BYTES = 100 * 1024 * 1024;
/** How often a non-admin polls the feedback unread count, in milliseconds. */
export const FEEDBACK_UNREAD_POLL_MS = 30_000;
/** Delay before the feedback badge refreshes after opening the tab, in milliseconds. */
export const BADGE_REFRESH_DELAY_MS = 500;
/** Delay before an opened feedback conversation is marked read, in milliseconds. */
export const MARK_READ_DELAY_MS = 500;

/** `limit` used when the admin console loads the user list. */
export const USERS_FETCH_LIMIT = 1000;
/** The "filters saved" popup closes after this many milliseconds. */
export const FILTERS_SAVED_POPUP_MS = 3_000;
/** Success and error toasts close after this many milliseconds. */
export const TOAST_MS = 4_000;
/** The "Account Verified!" popup redirects to login after this many milliseconds. */
export const ACTIVATION_REDIRECT_MS = 8_000;
/** The "copied to clipboard" notice shows for this many milliseconds. */
export const CLIPBOARD_NOTICE_MS = 3_000;

/** The admin system monitor refreshes every this many milliseconds. */
export const MONITOR_REFRESH_MS = 60_000;
/** Start offsets of the system monitor's first loads, in milliseconds. */
export const MONITOR_STAGGER_MS = [0, 100, 200, 300, 400] as const;
/** `limit` of the system-logs request, and how many logs are displayed. */
export const LOGS_LIMIT = 50;
/** How many agencies the monitor's top-agencies lists show. */
export const TOP_AGENCIES_SHOWN = 5;
/** How many CPU cores the monitor shows individually. */
export const CPU_CORES_SHOWN = 4;

/** Agency codes offered at sign-up, in display order. */
export const SIGNUP_AGENCY_CODES = ["FRV", "CFA", "SES", "Other"] as const;
/** An agency code offered at sign-up. */
export type SignupAgencyCode = (typeof SIGNUP_AGENCY_CODES)[number];

/** The sign-up agencies with their full names (also what the server seeds). */
export const SIGNUP_AGENCIES: ReadonlyArray<{ code: SignupAgencyCode; name: string }> = [
  { code: "FRV", name: "Fire Rescue Victoria" },
  { code: "CFA", name: "Country Fire Authority" },
  { code: "SES", name: "State Emergency Service" },
  { code: "Other", name: "Other" },
];

/** The placeholder agency that collects capcodes no admin has assigned yet. */
export const UNMAPPED_AGENCY = { code: "UNMAPPED", name: "Unmapped Capcodes" } as const;

/** System log levels, most severe first. */
export const LOG_LEVELS = ["critical", "error", "warn", "info"] as const;
/** A system log level. */
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Australian state and territory abbreviations. */
export const AU_STATE_CODES = ["NSW", "VIC", "QLD", "SA", "WA", "TAS", "NT", "ACT"] as const;
/** An Australian state or territory abbreviation. */
export type AuStateCode = (typeof AU_STATE_CODES)[number];
