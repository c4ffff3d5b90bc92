import { api } from "../../api/client";
import { getDeviceId } from "../../api/device";
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

export const authApi = {
  async checkSessionLimit(phone: string): Promise<SessionLimitReply> {
    const deviceId = await getDeviceId();
    return api.post<SessionLimitReply>("/sessions/check-limit", { phone, deviceId }, signIn);
  },

  async forceLogout(phone: string, sessionIdToLogout: DeviceSession["id"]): Promise<{ success: boolean }> {
    const deviceId = await getDeviceId();
    return api.post("/sessions/force-logout", { phone, deviceId, sessionIdToLogout }, signIn);
  },

  requestOtp(phone: string): Promise<RequestOtpReply> {
    return api.post<RequestOtpReply>("/auth/request-otp", { phone }, signIn);
  },

  verifyOtp(phone: string, otpCode: string): Promise<VerifyOtpReply> {
    return api.post<VerifyOtpReply>("/auth/verify-otp", { phone, otp_code: otpCode }, signIn);
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
