import type { FeedView } from "@turnout/domain";
import { useCallback, useEffect, useRef, useState } from "react";
import { type Alert, alertSchema } from "../../api/alerts";
import { sessionNoticeForReason } from "../../api/client";
import { publishLiveEvent } from "../../api/live-events";
import { type LiveChannel, type LiveConnectionState, openLiveChannel } from "../../api/live-socket";
import { emitSessionNotice } from "../../api/session-events";
import type { SessionUser } from "../../api/types";
import { afterFirstContent } from "../../ui/first-content";
import { alertsApi } from "./alerts-api";

/**
 * After an `alerts:refresh` (a burst the server coalesced), the feed's first page is read once the
 * burst has settled: no refresh for this long, plus up to REFRESH_JITTER_MS so a thousand screens do not
 * ask in the same instant; but no later than REFRESH_MAX_WAIT_MS after the first refresh of a burst
 * that goes on. Meanwhile each refresh's newest alert is shown at once.
 */
export const REFRESH_SETTLE_MS = 2_000;
export const REFRESH_JITTER_MS = 5_000;
export const REFRESH_MAX_WAIT_MS = 30_000;

function numberField(payload: unknown, field: string): number | null {
  if (typeof payload !== "object" || payload === null) return null;
  const value = (payload as Record<string, unknown>)[field];
  return typeof value === "number" && Number.isFinite(value) ? value : null;
}

function textField(payload: unknown, field: string): string | null {
  if (typeof payload !== "object" || payload === null) return null;
  const value = (payload as Record<string, unknown>)[field];
  return typeof value === "string" && value.trim() !== "" ? value : null;
}

/** The ids of `joined-user-agencies`' agencies, or null when the payload lists none readable. */
function agencyIdsOf(payload: unknown): string[] | null {
  if (typeof payload !== "object" || payload === null) return null;
  const agencies = (payload as { agencies?: unknown }).agencies;
  if (!Array.isArray(agencies)) return null;
  return agencies.flatMap((agency) => {
    const id = typeof agency === "object" && agency !== null ? (agency as { id?: unknown }).id : undefined;
    return typeof id === "number" || typeof id === "string" ? [String(id)] : [];
  });
}

/** The agencies (shown) and units a `joined-user-agencies` notice names. */
export type JoinedView = { agencyIds: number[]; units: { id: number; agency_id: number }[] };

export function joinedViewOf(payload: unknown): JoinedView | null {
  const p = payload as { agencies?: unknown; units?: unknown } | null;
  if (!p || !Array.isArray(p.agencies) || !Array.isArray(p.units)) return null;
  const agencyIds = p.agencies.map((a: { id?: unknown }) => Number(a?.id)).filter(Number.isSafeInteger);
  const units = p.units
    .map((u: { id?: unknown; agency_id?: unknown }) => ({
      id: Number(u?.id),
      agency_id: Number(u?.agency_id),
    }))
    .filter((u) => Number.isSafeInteger(u.id) && Number.isSafeInteger(u.agency_id));
  return { agencyIds, units };
}

export interface LiveChannelState {
  state: LiveConnectionState;
  /** The server's warning on joining (e.g. no agency assigned yet). */
  warning: string | null;
  /** The agencies the last join covered (their pages reach this feed); null until the server says. */
  joinedAgencyIds: string[] | null;
  /** The last error the server sent over the channel. */
  serverError: string | null;
  dismissServerError: () => void;
  /** Try again after the channel failed or was closed by the server. */
  reconnect: () => void;
  /** Join the user's agencies again (after the shown/hidden agencies changed). */
  rejoin: () => void;
  /** Close the channel for good (before signing out, so our own logout does not read as a lost session). */
  stop: () => void;
}

/**
 * The page's one live channel for the signed-in user: joins their agencies on every connect, hands
 * each valid `new-alert` to `onAlert`, and hands a session the server ended to the Session Ended flow.
 * `onRoomsJoined` is called each time the server confirms a join this page asked for (on the first
 * connect, after a reconnect, after the view changed): a page sent before that moment reached rooms this
 * page was not yet in, so the feed reads its first page once more (`recovered` after a reconnect). An
 * `alerts:refresh` (a burst the server did not send alert by alert) hands its newest alert to `onAlert`
 * at once and calls `onRefresh` once the burst has settled, so the feed reads its first page for the
 * rest. While `joinAdmin` is true (an admin in the admin console) it also joins the admin channel, on
 * every connect, and leaves it when `joinAdmin` turns false (SPEC 4: admins returning to alerts leave
 * the admin channel). `view` (issue 26) is the feed's view: the server sends the member's units'
 * alerts, or their whole agencies'; a change joins again. `onJoined` hears each `joined-user-agencies`
 * (the member's agencies and units), the server's own after an admin changed them included, which
 * `onAccessChanged` hears alone.
 */
export function useLiveChannel(
  user: SessionUser,
  callbacks: {
    onAlert: (alert: Alert) => void;
    onRoomsJoined: (detail: { recovered: boolean }) => void;
    onRefresh: () => void;
    onJoined?: (payload: unknown) => void;
    onAccessChanged?: () => void;
  },
  { joinAdmin = false, view = "units" }: { joinAdmin?: boolean; view?: FeedView } = {},
): LiveChannelState {
  const [state, setState] = useState<LiveConnectionState>("connecting");
  const [warning, setWarning] = useState<string | null>(null);
  const [joinedAgencyIds, setJoinedAgencyIds] = useState<string[] | null>(null);
  const [serverError, setServerError] = useState<string | null>(null);
  const channelRef = useRef<LiveChannel | null>(null);
  const latest = useRef(callbacks);
  latest.current = callbacks;
  const wantsAdmin = useRef(joinAdmin);
  wantsAdmin.current = joinAdmin;
  const wantedView = useRef(view);
  wantedView.current = view;
  // The view the current connection joined with (a change joins again).
  const joinedView = useRef<FeedView | null>(null);
  // Whether join-admin was sent on the current connection (a new connection starts outside the room).
  const inAdminRoom = useRef(false);
  // Joins sent on the current connection that the server has not confirmed yet, and whether the
  // connection is a reconnect whose first confirmation has not come yet.
  const awaitedJoins = useRef(0);
  const recovering = useRef(false);
  const userId = user.id;
  const isAdmin = user.is_admin;

  /** Asks the server to join the user's rooms for `view`; its `joined-user-agencies` confirms it. */
  const joinUserAgencies = useCallback((channel: LiveChannel, view: FeedView) => {
    channel.emit("join-user-agencies", { view });
    joinedView.current = view;
    awaitedJoins.current += 1;
  }, []);

  useEffect(() => {
    let channel: LiveChannel | null = null;
    // The pending read after a burst: when it fires, and the latest it may fire.
    let refreshTimer: number | undefined;
    let refreshDeadline = 0;
    const scheduleRefresh = () => {
      const now = Date.now();
      if (refreshTimer === undefined) refreshDeadline = now + REFRESH_MAX_WAIT_MS;
      window.clearTimeout(refreshTimer);
      const wait = REFRESH_SETTLE_MS + Math.random() * REFRESH_JITTER_MS;
      refreshTimer = window.setTimeout(
        () => {
          refreshTimer = undefined;
          latest.current.onRefresh();
          publishLiveEvent("burst-settled", null);
        },
        Math.max(0, Math.min(wait, refreshDeadline - now)),
      );
    };
    const showAlert = (payload: unknown) => {
      const parsed = alertSchema.safeParse(payload);
      if (!parsed.success) return;
      latest.current.onAlert(parsed.data);
      publishLiveEvent("new-alert", parsed.data);
    };
    // Opened in a task of its own once the first cards are on screen: socket.io's client, its handshake
    // and its first packets took a phone's main thread and network in front of them (issue 31). What
    // arrives meanwhile is read when the rooms are joined (onRoomsJoined).
    const cancelOpening = afterFirstContent(() => {
      channel = openLiveChannel(
        { userId, isAdmin },
        {
          onState: (next, { recovered }) => {
            setState(next);
            if (next !== "connected") {
              inAdminRoom.current = false;
              joinedView.current = null;
              return;
            }
            awaitedJoins.current = 0;
            recovering.current = recovered;
            if (channel) joinUserAgencies(channel, wantedView.current);
            if (wantsAdmin.current) {
              channel?.emit("join-admin");
              inAdminRoom.current = true;
            }
          },
          onNewAlert: showAlert,
          onAlertsRefresh: (payload) => {
            if (typeof payload === "object" && payload !== null)
              showAlert((payload as { newest?: unknown }).newest);
            if ((numberField(payload, "count") ?? 2) > 1) scheduleRefresh();
          },
          onJoinedUserAgencies: (payload) => {
            setWarning(textField(payload, "warning"));
            latest.current.onJoined?.(payload);
            setJoinedAgencyIds(agencyIdsOf(payload));
            // The server's own notice (an admin changed the member's agencies or units) answers no join
            // of ours: what the member may read changed.
            if (awaitedJoins.current === 0) {
              latest.current.onAccessChanged?.();
              return;
            }
            awaitedJoins.current -= 1;
            const recovered = recovering.current;
            recovering.current = false;
            latest.current.onRoomsJoined({ recovered });
            publishLiveEvent("rooms-joined", { recovered });
          },
          onError: (payload) => setServerError(textField(payload, "message")),
          onSessionEnded: (payload) => {
            channel?.close();
            channelRef.current = null;
            setState("disconnected");
            emitSessionNotice(sessionNoticeForReason(textField(payload, "reason")));
          },
          // The handshake was refused: let an ordinary call find out whether the session is over.
          onRejected: () => {
            alertsApi.checkSession().catch(() => undefined);
          },
        },
      );
      channelRef.current = channel;
    });
    return () => {
      cancelOpening();
      window.clearTimeout(refreshTimer);
      channel?.close();
      if (channelRef.current === channel) channelRef.current = null;
    };
  }, [userId, isAdmin, joinUserAgencies]);

  // Entering or leaving the admin console on an open connection; a closed one joins on connect.
  useEffect(() => {
    const channel = channelRef.current;
    if (!channel || state !== "connected" || joinAdmin === inAdminRoom.current) return;
    channel.emit(joinAdmin ? "join-admin" : "leave-admin");
    inAdminRoom.current = joinAdmin;
  }, [joinAdmin, state]);

  // The feed's view changed on an open connection: join again with it.
  useEffect(() => {
    const channel = channelRef.current;
    if (!channel || state !== "connected" || joinedView.current === view) return;
    joinUserAgencies(channel, view);
  }, [view, state, joinUserAgencies]);

  // Back online after giving up: try again at once rather than waiting for a reload.
  useEffect(() => {
    const handleOnline = () => channelRef.current?.reconnect();
    window.addEventListener("online", handleOnline);
    return () => window.removeEventListener("online", handleOnline);
  }, []);

  const reconnect = useCallback(() => channelRef.current?.reconnect(), []);
  const rejoin = useCallback(() => {
    if (channelRef.current) joinUserAgencies(channelRef.current, wantedView.current);
  }, [joinUserAgencies]);
  const stop = useCallback(() => {
    channelRef.current?.close();
    channelRef.current = null;
    setState("disconnected");
  }, []);
  const dismissServerError = useCallback(() => setServerError(null), []);

  return { state, warning, joinedAgencyIds, serverError, dismissServerError, reconnect, rejoin, stop };
}
