import { inArray } from "drizzle-orm";
import type { FastifyInstance } from "fastify";
import type { Server, Socket } from "socket.io";
import type { Database } from "../db/client.js";
import { displays } from "../db/schema.js";
import { unauthorized } from "../errors.js";
import { authenticateDisplay } from "../shared/display-credentials.js";
import { displayRoom, unitRoom } from "./rooms.js";

// Station displays on the live channel (issue 34). A screen paired with a display of one unit connects
// with its token (`auth: { displayToken }`) instead of a member's: it joins its unit's room, where the
// unit's new jobs and the answers to them are sent, and nothing else. It has no user, no session and
// no device slot; every event it sends is refused (it cannot join another room, answer or post), and
// names never come over the channel (the board reads them, its unit's only, from /api/display/board).

/** Who a display's socket is: the display, its unit, and the token hash it signed in with. */
export type SocketDisplay = { id: number; unitId: number; tokenHash: string };

export const DISPLAY_READS_ONLY = "A station display only reads its unit's jobs.";
/** Told to a display's screen that was signed out (unpaired, paired with another screen, removed). */
export const DISPLAY_SIGNED_OUT = "display-signed-out";

/** The display a handshake's token signs in (marked seen now); throws 401 when there is none. */
export async function resolveDisplay(db: Database, token: string): Promise<SocketDisplay> {
  if (token.length > 200) throw unauthorized("This screen is not paired with a display.");
  const display = await authenticateDisplay(db, token);
  return { id: display.id, unitId: display.unitId, tokenHash: display.tokenHash! };
}

/** A display's socket is connected: its unit's room and its own, and every event it sends refused. */
export function onDisplayConnection(socket: Socket, display: SocketDisplay): void {
  void socket.join([unitRoom(display.unitId), displayRoom(display.id)]);
  socket.onAny((event: unknown) => {
    socket.emit("error", { message: DISPLAY_READS_ONLY, event: String(event).slice(0, 60) });
  });
  socket.emit("joined-display", { unit_id: display.unitId });
}

/**
 * Signs the screens of these displays out (on every instance): told so, then disconnected. `keep`: the
 * token hash of a screen just paired with the display, which stays.
 */
export async function signOutDisplays(
  io: Server,
  displayIds: readonly number[],
  keep: string | null = null,
): Promise<void> {
  if (displayIds.length === 0) return;
  const sockets = await io.in(displayIds.map(displayRoom)).fetchSockets();
  for (const socket of sockets) {
    if ((socket.data as { display?: SocketDisplay }).display?.tokenHash === keep && keep !== null) continue;
    socket.emit(DISPLAY_SIGNED_OUT, {});
    socket.disconnect(true);
  }
}

/**
 * After a gap in the Redis link: a display signed out on another instance meanwhile (its event may
 * have been lost) is signed out here now, as sessions are.
 */
export async function endLostDisplays(app: FastifyInstance, io: Server): Promise<void> {
  const local = (await io.local.fetchSockets()).flatMap((socket) => {
    const display = (socket.data as { display?: SocketDisplay }).display;
    return display ? [{ socket, display }] : [];
  });
  if (local.length === 0) return;
  const ids = [...new Set(local.map((l) => l.display.id))];
  const rows = await app.db
    .select({ id: displays.id, tokenHash: displays.tokenHash })
    .from(displays)
    .where(inArray(displays.id, ids));
  const current = new Map(rows.map((r) => [r.id, r.tokenHash]));
  for (const { socket, display } of local) {
    if (current.get(display.id) === display.tokenHash) continue;
    socket.emit(DISPLAY_SIGNED_OUT, {});
    socket.disconnect(true);
  }
}
