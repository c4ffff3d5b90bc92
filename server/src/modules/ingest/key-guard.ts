import type { FastifyInstance, FastifyRequest } from "fastify";
import { AppError, rateLimited } from "../../errors.js";
import type { ReceiverIdentity } from "../../shared/receiver-identity.js";
import { tooManyAttempts } from "../../shared/security/limits.js";
import { getSecuritySettings } from "../../shared/security/settings.js";
import { writeSystemLog } from "../../system-log.js";
import { isEnvIngestKey, verifyIngestKey } from "./keys.js";

function presentedKey(request: FastifyRequest): string | null {
  const auth = request.headers.authorization;
  const bearer = auth ? /^Bearer\s+(\S+)$/i.exec(auth)?.[1] : undefined;
  const header = request.headers["x-api-key"] ?? request.headers.apikey;
  return bearer ?? (typeof header === "string" ? header : null);
}

const wrongKeyCounter = (ip: string) => `ingest-key:ip:${ip}`;

/**
 * Seconds this address stays refused for presenting too many wrong ingest keys, or 0. The key given
 * in the environment is compared in memory and never throttled, so a receiver using it is never held
 * up by a neighbour on its network.
 */
async function wrongKeyThrottle(app: FastifyInstance, ip: string, presented: string | null) {
  if (isEnvIngestKey(app.config.ingestApiKey, presented)) return 0;
  const blocked = await app.cache.get(`${wrongKeyCounter(ip)}:blocked`);
  return blocked ? Math.max(1, Math.ceil((Number(blocked) - Date.now()) / 1000)) : 0;
}

/**
 * Counts a wrong ingest key against the address. The first in a window is logged (warn, and the
 * System Monitor's log), and so is the one that starts the refusal: once per window each, however many
 * follow.
 */
async function countWrongKey(app: FastifyInstance, request: FastifyRequest): Promise<void> {
  const settings = await getSecuritySettings(app.db);
  const window = settings.otp_request_window_seconds;
  const { count, ttlSeconds } = await app.cache.increment(wrongKeyCounter(request.ip), window);
  const limit = settings.ingest_key_failures_per_ip;
  if (count === 1 || count === limit) {
    const refused = count === limit;
    const message = refused
      ? `Ingest: ${count} wrong keys from ${request.ip}; refused for ${Math.ceil(ttlSeconds / 60)} minutes`
      : `Ingest: wrong key from ${request.ip} (further ones are counted, not logged, for ${Math.ceil(ttlSeconds / 60)} minutes)`;
    request.log.warn({ ip: request.ip, wrongKeys: count }, message);
    await writeSystemLog(app.db, {
      level: "warn",
      category: "ingest",
      message,
      details: { wrong_keys: count },
      ip: request.ip,
    });
  }
  if (count >= limit) {
    await app.cache.set(
      `${wrongKeyCounter(request.ip)}:blocked`,
      String(Date.now() + ttlSeconds * 1000),
      ttlSeconds,
    );
  }
}

/**
 * The ingest routes' key check, run before the body is parsed or validated (a caller without a key
 * learns nothing else): the key's receiver is kept for the handler (`identityOf`). An address that
 * keeps presenting wrong keys is refused unheard for the rest of the window (issue 27).
 */
export function ingestKeyGuard(app: FastifyInstance) {
  const identities = new WeakMap<FastifyRequest, ReceiverIdentity>();
  const requireIngestKey = async (request: FastifyRequest) => {
    const presented = presentedKey(request);
    const throttled = await wrongKeyThrottle(app, request.ip, presented);
    if (throttled > 0) throw rateLimited(tooManyAttempts(throttled), throttled);
    const key = await verifyIngestKey(app.db, app.config.ingestApiKey, presented);
    if (!key) {
      await countWrongKey(app, request);
      throw new AppError(401, "unauthorized", "A valid ingest key is required.");
    }
    identities.set(request, key);
  };
  return {
    requireIngestKey,
    identityOf: (request: FastifyRequest) => identities.get(request) ?? null,
  };
}
