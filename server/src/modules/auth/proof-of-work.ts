import { createChallenge, randomInt, verifySolution } from "altcha-lib";
import { deriveKey } from "altcha-lib/algorithms/pbkdf2";
import type { ServiceContext } from "../../context.js";
import { AppError } from "../../errors.js";
import { derivedSecret } from "../../shared/derived-keys.js";
import { consumeRateLimit } from "../../shared/security/limits.js";
import type { SecuritySettings } from "../../shared/security/settings.js";

/**
 * Proof of work once under attack (issue 27), with ALTCHA's self-hosted library: no third party, no
 * cookie, nothing about the person. The challenge asks for the counter whose PBKDF2-SHA256 key starts
 * with a given prefix; the browser tries counters from 0 (about two thirds of `pow_max_tries` tries of
 * `pow_cost` iterations each: a second or two on a phone) and sends the solution in the `X-Altcha`
 * header. The server checks it with one HMAC, never by redoing the work, and takes each solution once.
 */

/** How long a challenge may be solved and used. */
const CHALLENGE_SECONDS = 5 * 60;
/** Challenges one address may be given per window: each costs the server one key derivation. */
const CHALLENGES_PER_ADDRESS = 60;

const ALGORITHM = "PBKDF2/SHA-256";

function secrets(ctx: Pick<ServiceContext, "config">) {
  return {
    hmacSignatureSecret: derivedSecret(ctx.config.jwtSecret, "altcha-challenge"),
    hmacKeySignatureSecret: derivedSecret(ctx.config.jwtSecret, "altcha-key"),
  };
}

/** A new signed challenge, its difficulty from the security settings. */
export async function proofOfWorkChallenge(ctx: Pick<ServiceContext, "config">, settings: SecuritySettings) {
  const most = Math.max(1, settings.pow_max_tries);
  return createChallenge({
    algorithm: ALGORITHM,
    cost: settings.pow_cost,
    counter: randomInt(most, Math.ceil(most / 3)),
    deriveKey,
    expiresAt: new Date(Date.now() + CHALLENGE_SECONDS * 1000),
    ...secrets(ctx),
  });
}

type Payload = Parameters<typeof verifySolution>[0];

function decode(header: string): Pick<Payload, "challenge" | "solution"> | null {
  if (header.length > 4096) return null;
  try {
    const parsed = JSON.parse(Buffer.from(header, "base64").toString("utf8")) as Partial<Payload>;
    const { challenge, solution } = parsed;
    if (typeof challenge?.parameters?.nonce !== "string" || typeof challenge.signature !== "string")
      return null;
    if (typeof solution?.counter !== "number" || typeof solution.derivedKey !== "string") return null;
    return { challenge, solution };
  } catch {
    return null;
  }
}

/**
 * Passes when `header` holds a solution to a challenge this server signed, not expired and not used
 * before. Otherwise throws 428 `proof_of_work_required` carrying a fresh challenge (429 when this
 * address has been given too many challenges this window).
 */
export async function requireProofOfWork(
  ctx: Pick<ServiceContext, "config" | "cache">,
  header: string | null,
  settings: SecuritySettings,
  ip: string,
): Promise<void> {
  const payload = header ? decode(header) : null;
  if (payload) {
    const result = await verifySolution({ ...payload, deriveKey, ...secrets(ctx) }).catch(() => null);
    if (result?.verified) {
      const nonce = payload.challenge.parameters.nonce;
      const { count } = await ctx.cache.increment(`pow:used:${nonce}`, CHALLENGE_SECONDS);
      if (count === 1) return;
    }
  }
  await consumeRateLimit(
    ctx.cache,
    `pow:challenges:${ip}`,
    CHALLENGES_PER_ADDRESS,
    settings.otp_request_window_seconds,
  );
  throw new AppError(
    428,
    "proof_of_work_required",
    payload
      ? "That check of your device did not pass or was used already. Checking your device again..."
      : "Checking your device...",
    { challenge: await proofOfWorkChallenge(ctx, settings) },
  );
}
