import { api } from "../../api/client";
import { getDeviceId } from "../../api/device";
import { storage } from "../../api/storage";
import type { SessionAgency, SessionUser } from "../../api/types";

/** One of the user's active device sessions, as listed by the maximum-devices dialog (SPEC 3). */
export interface DeviceSession {
  id: string | number;
  device_info: string;
  last_activity: string | null;
  ip_address: string | null;
  created_at: string | null;
}

export interface SessionLimitReply {
  success: boolean;
  canCreate: boolean;
  maxSessions: number;
  sessions: DeviceSession[];
}

export interface RequestOtpReply {
  success: boolean;
  message?: string;
  errorType?: string;
  needsVerification?: boolean;
}

export interface SignInData {
  token: string;
  user: SessionUser;
  agency: SessionAgency | null;
  /** This device's credential for the phone (issue 27); kept by authApi, not by the session. */
  device_credential?: string;
}

export interface VerifyOtpReply {
  success: boolean;
  message?: string;
  data: SignInData;
}

export interface RegistrationInput {
  first_name: string;
  last_name: string;
  phone: string;
  user_agency: string;
  postcode: string;
  town_name: string;
  state_name: string;
  /** The member's brigades or units (issue 26), of the chosen agency. */
  unit_ids?: number[];
}

/** Sign-in calls answer 401 and 403 themselves: neither means "your session ended" there. */
const signIn = { ignoreUnauthorized: true, handlesForbidden: true } as const;

/**
 * Sign-in calls for `phone` carry this device's credential for it, when it has one (issue 27): the
 * server then serves the device from its own allowance, whatever strangers do to the phone.
 */
function asDeviceOf(phone: string) {
  const credential = storage.getDeviceCredential(phone);
  return credential ? { ...signIn, headers: { "X-Device-Credential": credential } } : signIn;
}

/** Keeps the credential a sign-in hands out, for this phone's next sign-in on this device. */
function keepCredential(phone: string, reply: VerifyOtpReply): VerifyOtpReply {
  if (reply.data?.device_credential) storage.setDeviceCredential(phone, reply.data.device_credential);
  return reply;
}

export const authApi = {
  async checkSessionLimit(phone: string): Promise<SessionLimitReply> {
    const deviceId = await getDeviceId();
    return api.post<SessionLimitReply>("/sessions/check-limit", { phone, deviceId }, asDeviceOf(phone));
  },

  /** `evictionToken`: from the 409 session_limit of a verified code, when the device has no credential. */
  async forceLogout(
    phone: string,
    sessionIdToLogout: DeviceSession["id"],
    evictionToken?: string,
  ): Promise<{ success: boolean }> {
    const deviceId = await getDeviceId();
    return api.post(
      "/sessions/force-logout",
      { phone, deviceId, sessionIdToLogout, ...(evictionToken ? { eviction_token: evictionToken } : {}) },
      asDeviceOf(phone),
    );
  },

  requestOtp(phone: string): Promise<RequestOtpReply> {
    return api.post<RequestOtpReply>("/auth/request-otp", { phone }, asDeviceOf(phone));
  },

  async verifyOtp(phone: string, otpCode: string): Promise<VerifyOtpReply> {
    const reply = await api.post<VerifyOtpReply>(
      "/auth/verify-otp",
      { phone, otp_code: otpCode },
      asDeviceOf(phone),
    );
    return keepCredential(phone, reply);
  },

  /** Signs in with the operator's one-time recovery link (README 'Signing in'). */
  async recover(token: string): Promise<VerifyOtpReply> {
    const reply = await api.post<VerifyOtpReply>("/auth/recover", { token }, signIn);
    return reply.data?.user ? keepCredential(reply.data.user.phone, reply) : reply;
  },

  register(
    input: RegistrationInput,
  ): Promise<{ success: boolean; message?: string; needsVerification?: boolean }> {
    return api.post("/auth/register", input, signIn);
  },

  activate(phone: string, activationCode: string): Promise<{ success: boolean; message?: string }> {
    return api.post("/auth/activate", { phone, activation_code: activationCode }, signIn);
  },

  /** Best effort: the local session is cleared whatever the server says. */
  logout(): Promise<unknown> {
    return api.post("/auth/logout", undefined, { ignoreUnauthorized: true, handlesForbidden: true });
  },

  profile(): Promise<{
    success: boolean;
    user: SessionUser & { pwa_banner_reset_at?: string | null };
    agency?: SessionAgency | null;
  }> {
    return api.get("/auth/profile");
  },
};
