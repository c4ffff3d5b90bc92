import { z } from "zod/mini";

/** Where the screen keeps the token it was paired with (its own secret, issue 34). */
export const DISPLAY_TOKEN_KEY = "turnout_display_token";

const positionSchema = z.object({ latitude: z.number(), longitude: z.number(), precision: z.string() });

export const boardJobSchema = z.object({
  id: z.number(),
  job_alert_id: z.number(),
  type: z.string(),
  type_label: z.string(),
  message: z.string(),
  primary_address: z.nullable(z.string()),
  job_number: z.nullable(z.string()),
  sent_at: z.string(),
  started_at: z.string(),
  position: z.nullable(positionSchema),
  responders: z.array(
    z.object({ name: z.string(), eta_minutes: z.nullable(z.number()), answered_at: z.string() }),
  ),
  others_responding: z.number(),
  not_available: z.number(),
});
export type BoardJob = z.infer<typeof boardJobSchema>;

export const boardSchema = z.object({
  display: z.object({ id: z.number(), name: z.string(), idle_minutes: z.number() }),
  unit: z.object({
    id: z.number(),
    name: z.string(),
    station: z.nullable(z.object({ latitude: z.number(), longitude: z.number() })),
  }),
  server_time: z.string(),
  jobs: z.array(boardJobSchema),
  map: z.object({ tile_url: z.string(), attribution: z.string() }),
});
export type Board = z.infer<typeof boardSchema>;

/** Why a board call failed: the screen is not (or no longer) paired, or the server could not be reached. */
export class BoardError extends Error {
  constructor(readonly kind: "unpaired" | "unreachable") {
    super(kind);
  }
}

/** A call of the display API with the screen's token; plain fetch, as a screen has no user session. */
async function displayCall<T>(
  method: "GET" | "POST",
  path: string,
  token: string | null,
  schema: z.ZodMiniType<T>,
) {
  let res: Response;
  try {
    res = await fetch(`/api/display/${path}`, {
      method,
      headers: token ? { "X-Display-Token": token } : {},
      cache: "no-store",
    });
  } catch {
    throw new BoardError("unreachable");
  }
  if (res.status === 401) throw new BoardError("unpaired");
  if (!res.ok) throw new BoardError("unreachable");
  const body = (await res.json()) as { data: unknown };
  return schema.parse(body.data);
}

export const boardApi = {
  startPairing: () =>
    displayCall(
      "POST",
      "pairing",
      null,
      z.object({ secret: z.string(), code: z.string(), expires_at: z.string() }),
    ),
  pairingState: (secret: string) =>
    displayCall(
      "GET",
      "pairing",
      secret,
      z.union([
        z.object({ status: z.literal("waiting"), expires_at: z.string() }),
        z.object({ status: z.literal("paired"), display: z.string() }),
      ]),
    ),
  board: (token: string) => displayCall("GET", "board", token, boardSchema),
};

/** Seconds from a time to now, never negative. */
export const secondsSince = (iso: string, now: number) =>
  Math.max(0, Math.floor((now - Date.parse(iso)) / 1000));

/** "7:05" or "1:02:09" from seconds. */
export function clockDigits(seconds: number): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  const two = (n: number) => String(n).padStart(2, "0");
  return h > 0 ? `${h}:${two(m)}:${two(s)}` : `${m}:${two(s)}`;
}

/**
 * A responder's arrival countdown: seconds left of their ETA from their answer, never more than the ETA
 * (the screen's clock, ticking once a second, may be a little behind the server's answer time); null
 * without an ETA.
 */
export function etaSecondsLeft(answeredAt: string, etaMinutes: number | null, now: number): number | null {
  if (etaMinutes === null) return null;
  return Math.min(etaMinutes * 60, Math.round((Date.parse(answeredAt) + etaMinutes * 60_000 - now) / 1000));
}
