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
    value: 6,
    description:
      "Code requests allowed per phone from all IP addresses together in the window (a device signed in before has its own)",
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
  // Issue 27: SMS budgets, the owner's own allowance, proof of work under attack, ingest keys.
  sms_budget_per_hour: {
    value: 300,
    description: "SMS per hour, all kinds; reached: strangers' SMS stop, admins are told",
  },
  sms_budget_per_day: {
    value: 2000,
    description: "SMS per day, all kinds; reached: strangers' SMS stop, admins are told",
  },
  sms_unauth_budget_per_hour: {
    value: 60,
    description: "Sign-in and registration SMS per hour for devices not signed in before",
  },
  sms_unauth_budget_per_day: {
    value: 240,
    description: "Sign-in and registration SMS per day for devices not signed in before",
  },
  sms_prefix_budget_per_hour: {
    value: 10,
    description: "Sign-in and registration SMS per hour to one block of 10,000 numbers",
  },
  sms_phone_budget_per_day: {
    value: 10,
    description: "Sign-in and registration SMS per day to one phone for devices not signed in before",
  },
  device_code_requests_per_window: {
    value: 3,
    description: "Code requests per window from a device signed in before (its own allowance)",
  },
  device_failures_per_day: {
    value: 10,
    description: "Wrong codes from a device signed in before, in a day, before it counts as a stranger",
  },
  device_credential_days: {
    value: 365,
    description: "How long a device stays recognised after its last sign-in",
  },
  pow_phone_requests: {
    value: 3,
    description: "Strangers' code requests for a phone in the window before they need a proof of work",
  },
  pow_phone_failures: {
    value: 5,
    description: "Wrong codes for a phone in a day before strangers need a proof of work",
  },
  pow_service_unauth_sms_per_hour: {
    value: 30,
    description: "Sign-in and registration SMS in the hour before every stranger needs a proof of work",
  },
  pow_service_failures_per_window: {
    value: 30,
    description: "Wrong codes for any phones in the window before every stranger needs a proof of work",
  },
  pow_cost: { value: 5000, description: "Proof of work: PBKDF2 iterations per try" },
  pow_max_tries: {
    value: 400,
    description: "Proof of work: the most tries a challenge takes (on average about two thirds)",
  },
  ingest_key_failures_per_ip: {
    value: 10,
    description: "Wrong ingest keys from one IP address in the window before it is refused unheard",
  },
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
  sms_budget_per_hour: { min: 1, max: 1_000_000 },
  sms_budget_per_day: { min: 1, max: 10_000_000 },
  sms_unauth_budget_per_hour: { min: 1, max: 100_000 },
  sms_unauth_budget_per_day: { min: 1, max: 1_000_000 },
  sms_prefix_budget_per_hour: { min: 1, max: 100_000 },
  sms_phone_budget_per_day: { min: 1, max: 1_000 },
  device_code_requests_per_window: { min: 1, max: 100 },
  device_failures_per_day: { min: 1, max: 1_000 },
  device_credential_days: { min: 1, max: 730 },
  pow_phone_requests: { min: 1, max: 10_000 },
  pow_phone_failures: { min: 1, max: 10_000 },
  pow_service_unauth_sms_per_hour: { min: 1, max: 1_000_000 },
  pow_service_failures_per_window: { min: 1, max: 1_000_000 },
  pow_cost: { min: 1, max: 1_000_000 },
  pow_max_tries: { min: 1, max: 1_000_000 },
  ingest_key_failures_per_ip: { min: 1, max: 100_000 },
};

/** Every security setting's key: the closed list `PUT /api/admin/security/config/:key` accepts. */
export const SECURITY_KEYS = Object.keys(SECURITY_DEFAULTS) as [SecurityKey, ...SecurityKey[]];
