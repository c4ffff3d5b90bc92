import { type DeviceInfo, deviceInfoSchema, findUnstorableText } from "@turnout/domain";
import type { FastifyRequest } from "fastify";
import { z } from "zod";
import type { RequestMeta } from "../context.js";
import { badRequest } from "../errors.js";
import { DEVICE_CREDENTIAL_HEADER } from "./device-credentials.js";

function header(request: FastifyRequest, name: string): string | null {
  const value = request.headers[name];
  return typeof value === "string" && value !== "" ? value : null;
}

/** The caller's address and user agent, and the device credential and proof of work it presented. */
export function requestMeta(request: FastifyRequest): RequestMeta {
  return {
    ip: request.ip ?? null,
    userAgent: request.headers["user-agent"]?.slice(0, 500) ?? null,
    credential: header(request, DEVICE_CREDENTIAL_HEADER),
    proofOfWork: header(request, PROOF_OF_WORK_HEADER),
  };
}

/**
 * The device a sign-in comes from: `X-Device-ID` (or `deviceId` in the body) is required; the
 * `X-Device-Info` JSON is kept when it is well formed and storable, and ignored otherwise (a header is
 * the client's description of itself: a bad one must not stop a sign-in).
 */
export function deviceMeta(request: FastifyRequest, bodyDeviceId?: string): DeviceMeta {
  const header = request.headers["x-device-id"];
  const deviceId = (typeof header === "string" ? header : bodyDeviceId)?.trim();
  if (!deviceId || deviceId.length > 128) {
    throw badRequest("The X-Device-ID header is required (at most 128 characters).");
  }
  return { ...requestMeta(request), deviceId, deviceInfo: parseDeviceInfo(request.headers["x-device-info"]) };
}

/** X-Device-Info as the server keeps it: any of the device info fields, each checked. */
const partialDeviceInfoSchema = z.object(deviceInfoSchema.shape).partial();

function parseDeviceInfo(raw: string | string[] | undefined) {
  if (typeof raw !== "string" || raw.length > 4096) return {};
  try {
    const parsed = partialDeviceInfoSchema.safeParse(JSON.parse(raw));
    return parsed.success && !findUnstorableText(parsed.data, "x-device-info") ? parsed.data : {};
  } catch {
    return {};
  }
}

/** The header a solution travels in: base64 of JSON `{ challenge, solution }` (ALTCHA's payload). */
export const PROOF_OF_WORK_HEADER = "x-altcha";

export type DeviceMeta = RequestMeta & { deviceId: string; deviceInfo: Partial<DeviceInfo> };
