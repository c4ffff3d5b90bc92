import { ACTIVATION_CODE_EXPIRY_MINUTES } from "./constants.js";

/** Machine-readable error types carried as `errorType` in error replies. */
export const ERROR_TYPES = [
  "validation_error",
  "rate_limited",
  "account_not_activated",
  "account_inactive",
  "user_not_found",
  "invalid_code",
  "code_expired",
  "session_limit",
  "unauthorized",
  "forbidden",
  "not_found",
  "conflict",
  "api_error",
  "network_error",
  "internal_error",
  "service_unavailable",
  "sms_budget_exceeded",
  "proof_of_work_required",
] as const;
/** An error type. */
export type ErrorType = (typeof ERROR_TYPES)[number];

/** Alert colour (MUI severity) for an error type's message. */
export type ErrorColor = "error" | "info" | "warning";

/** Colours the spec fixes: rate_limited red, account_not_activated blue, user_not_found yellow. */
export const ERROR_TYPE_COLORS: Readonly<Partial<Record<ErrorType, ErrorColor>>> = {
  rate_limited: "error",
  account_not_activated: "info",
  user_not_found: "warning",
};

/** Colour for any error type; types without a fixed colour are red. */
export function errorTypeColor(type: string | null | undefined): ErrorColor {
  return ERROR_TYPE_COLORS[type as ErrorType] ?? "error";
}

/** Tells whether a value is one of ERROR_TYPES. */
export function isErrorType(value: unknown): value is ErrorType {
  return typeof value === "string" && (ERROR_TYPES as readonly string[]).includes(value);
}

/** Every fixed user-facing text of SPEC 8 (and the fixed notices of SPEC 2), exactly as specified. */
export const MESSAGES = {
  SESSION_EXPIRED: "Your session has expired. Please log in again.",
  NOT_AUTHORIZED: "You are not authorized to access this resource. Please log in again.",
  SESSION_INVALID: "Your session is invalid. Please log in again.",
  LOGGED_OUT_BY_ADMIN: "You have been logged out by an administrator. Please log in again.",
  SESSION_ENDED_TITLE: "Session Ended",
  LOGIN_RATE_LIMITED:
    "SECURITY ALERT: Too many login attempts detected! Your account has been temporarily locked for security reasons. Please wait before trying again or contact your administrator.",
  LOGIN_FAILED: "Login failed. Please try again.",
  REGISTRATION_FAILED: "Registration failed. Please try again.",
  UNEXPECTED: "An unexpected error occurred",
  ACTIVATION_FAILED: "Activation failed. Please try again.",
  USER_NOT_FOUND: "User not found. Please check your phone number or create an account.",
  OTP_SEND_FAILED: "Failed to send OTP. Please try again.",
  OTP_VERIFY_FAILED: "Failed to verify OTP. Please try again.",
  FORCE_LOGOUT_FAILED: "Failed to logout other session. Please try again.",
  LOCATION_FAILED: "Failed to search location. Please try again.",
  LOCATION_NOT_FOUND: "Location not found",
  ALERTS_LOAD_FAILED: "Failed to load alerts",
  JOB_FORBIDDEN:
    "You do not have permission to view this alert. You are not assigned to the agency that owns this alert.",
  JOB_NOT_FOUND: "Message not found.",
  JOB_LOAD_FAILED: "Failed to load message details.",
  JOB_LOAD_TITLE: "Unable to Load Message",
  FILTERS_LOAD_FAILED: "Failed to load filter settings",
  FILTERS_SAVE_FAILED: "Failed to save filter settings",
  PREVIEW_FAILED: "Failed to generate preview",
  RULE_SAVE_FAILED: "Failed to save alert",
  RULE_TOGGLE_FAILED: "Failed to toggle alert",
  CAPCODE_ASSIGN_TITLE: "Assignment Failed",
  CAPCODE_ASSIGNED_TITLE: "Capcode Assigned!",
  CAPCODE_ALIAS_HINT: "Can be left blank if not known",
  FEEDBACK_CREATE_FAILED: "Failed to create feedback. Please try again.",
  FEEDBACK_SEND_FAILED: "Failed to send message. Please try again.",
  FEEDBACK_UPLOAD_FAILED: "Failed to upload file. Please try again.",
  FEEDBACK_ATTACHMENT_FAILED: "Feedback created, but attachment upload failed.",
  VIDEO_CONVERTING: "Converting video...",
  CLIPBOARD_COPIED: "Alert copied to clipboard!",
  NO_ALERTS: "No alerts found",
  SYSTEM_MONITOR_DENIED: "Access Denied - Admin privileges are required to view the system monitor.",
  SYSTEM_MONITOR_ADMIN_REQUIRED: "Admin access required to view system monitor",
  ACTIVATION_CODE_EXPIRY_NOTE: `Code expires in ${ACTIVATION_CODE_EXPIRY_MINUTES} minutes`,
  DEV_BANNER: "DEV ENVIRONMENT - Test server - Shares database - SMS disabled",
} as const;

/** The capcode-assignment failure text: 'Failed to capcode: {server error or message}'. */
export function capcodeAssignFailedMessage(detail: string): string {
  return `Failed to capcode: ${detail}`;
}
