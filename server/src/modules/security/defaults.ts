/**
 * Security settings with their defaults. They are rows of `security_config`, seeded on start,
 * so admins change limits and lockouts without a code change.
 */
export const SECURITY_DEFAULTS = {
  otp_expiry_seconds: { value: 300, description: "How long a one-time sign-in code stays valid" },
  otp_request_window_seconds: { value: 900, description: "Window for counting code requests" },
  otp_requests_per_phone: { value: 5, description: "Code requests allowed per phone in the window" },
  otp_requests_per_ip: { value: 20, description: "Code requests allowed per IP address in the window" },
  otp_max_failed_attempts: { value: 5, description: "Wrong codes before the phone is locked out" },
  lockout_duration_seconds: { value: 900, description: "How long a lockout lasts" },
  registrations_per_ip: { value: 10, description: "Registrations allowed per IP address in the window" },
  max_device_sessions: { value: 2, description: "Default maximum device sessions per user" },
  session_ttl_days: { value: 30, description: "How long a device session lasts without sign-in" },
} as const;

export type SecurityKey = keyof typeof SECURITY_DEFAULTS;
