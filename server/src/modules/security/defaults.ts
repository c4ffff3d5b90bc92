/**
 * Security settings with their defaults. They are rows of `security_config`, seeded on start,
 * so admins change limits and lockouts without a code change. README 'Signing in' explains how
 * they bound code guessing without letting a guesser lock an owner out.
 */
export const SECURITY_DEFAULTS = {
  otp_expiry_seconds: { value: 300, description: "How long a one-time sign-in code stays valid" },
  otp_request_window_seconds: { value: 900, description: "Window for counting code requests" },
  otp_requests_per_phone: {
    value: 5,
    description: "Code requests allowed per phone from one IP address in the window",
  },
  otp_requests_per_phone_all: {
    value: 20,
    description: "Code requests allowed per phone from all IP addresses together in the window",
  },
  otp_requests_per_ip: { value: 20, description: "Code requests allowed per IP address in the window" },
  otp_max_failed_attempts: {
    value: 5,
    description: "Wrong guesses one code accepts before it is voided (the owner requests a new one)",
  },
  otp_failures_per_ip_phone: {
    value: 5,
    description: "Wrong codes from one IP address for one phone before that address is locked out of it",
  },
  otp_failures_per_ip: {
    value: 20,
    description: "Wrong codes from one IP address, for any phones, before that address is locked out",
  },
  lockout_duration_seconds: {
    value: 900,
    description: "How long an address's first lockout lasts; each further one doubles, up to a day",
  },
  otp_daily_failures_per_phone: {
    value: 100,
    description: "Wrong codes for one phone from all addresses before the phone is guarded for a day",
  },
  otp_guarded_requests_per_phone: {
    value: 1,
    description: "Code requests allowed per guarded phone, from all addresses, in the window",
  },
  otp_guarded_max_failed_attempts: {
    value: 1,
    description: "Wrong guesses one code accepts while its phone is guarded",
  },
  registrations_per_ip: { value: 10, description: "Registrations allowed per IP address in the window" },
  max_device_sessions: { value: 2, description: "Default maximum device sessions per user" },
  session_ttl_days: { value: 30, description: "How long a device session lasts without sign-in" },
} as const;

export type SecurityKey = keyof typeof SECURITY_DEFAULTS;

/**
 * The values an admin may set for each key: a code must live long enough to type and not longer than
 * an hour, windows and lockouts between a minute and a day, counts from 1 up to where a limit stops
 * limiting.
 */
export const SECURITY_RANGES: Record<SecurityKey, { min: number; max: number }> = {
  otp_expiry_seconds: { min: 60, max: 3_600 },
  otp_request_window_seconds: { min: 60, max: 86_400 },
  otp_requests_per_phone: { min: 1, max: 1_000 },
  otp_requests_per_phone_all: { min: 1, max: 10_000 },
  otp_requests_per_ip: { min: 1, max: 10_000 },
  otp_max_failed_attempts: { min: 1, max: 100 },
  otp_failures_per_ip_phone: { min: 1, max: 1_000 },
  otp_failures_per_ip: { min: 1, max: 10_000 },
  lockout_duration_seconds: { min: 60, max: 86_400 },
  otp_daily_failures_per_phone: { min: 1, max: 10_000 },
  otp_guarded_requests_per_phone: { min: 1, max: 100 },
  otp_guarded_max_failed_attempts: { min: 1, max: 100 },
  registrations_per_ip: { min: 1, max: 10_000 },
  max_device_sessions: { min: 1, max: 20 },
  session_ttl_days: { min: 1, max: 365 },
};

/** Every security setting's key: the closed list `PUT /api/admin/security/config/:key` accepts. */
export const SECURITY_KEYS = Object.keys(SECURITY_DEFAULTS) as [SecurityKey, ...SecurityKey[]];
