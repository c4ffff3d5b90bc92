import type { Challenge } from "altcha-lib";
import { solveChallenge } from "altcha-lib";
import { deriveKey } from "altcha-lib/algorithms/pbkdf2";
import type { LightMyRequestResponse } from "fastify";

/** Solves a challenge the server sent (428 proof_of_work_required) into the X-Altcha header value. */
export async function solveProofOfWork(challenge: Challenge): Promise<string> {
  const solution = await solveChallenge({ challenge, deriveKey });
  if (!solution) throw new Error("proof of work not solved");
  return Buffer.from(JSON.stringify({ challenge, solution })).toString("base64");
}

/**
 * Sends a request as a determined client would: when the server asks for a proof of work, solves it
 * and sends the request again with the solution. Resolves to the last response and whether a proof
 * of work was asked for.
 */
export async function sendWithProofOfWork(
  send: (headers: Record<string, string>) => Promise<LightMyRequestResponse>,
): Promise<{ res: LightMyRequestResponse; solved: boolean }> {
  const first = await send({});
  if (first.statusCode !== 428) return { res: first, solved: false };
  const header = await solveProofOfWork(first.json().challenge as Challenge);
  return { res: await send({ "x-altcha": header }), solved: true };
}
