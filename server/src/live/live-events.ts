// What services tell the live channel (implemented by live/gateway.ts). Types only: modules import these, never the gateway.
import type { AlertRow } from "../shared/alerts/present.js";

/** What services tell the live channel, after their transaction has committed. */
export type LiveEvents = {
  /**
   * A new alert, or an existing one now also paged to more capcodes: sent to those capcodes' agencies
   * and units (issue 26), and new ones to the admins.
   */
  alertsCommitted(
    items: { alert: AlertRow; agencyIds: number[]; capcodeIds: number[]; isNew: boolean }[],
  ): void;
  /** Sessions that just ended: their pages show 'Session Ended' and their sockets close. */
  sessionsEnded(sessionIds: string[], reason: "terminated" | "logged_out_by_admin"): void;
  /**
   * A user's agencies, units or admin right changed (or a unit's capcodes): their sockets (on every
   * instance) leave the agency and unit rooms they may no longer read, pages following their feed join
   * the new set and get `joined-user-agencies` again, and a user who is no longer an admin leaves the
   * admin room.
   */
  userAccessChanged(userId: number): void;
  /** Keyword rules waiting for review changed (created, edited, decided): the admins' badge count. */
  pendingRulesChanged(pendingAlerts: number): void;
  /**
   * The answers to an emergency job changed (issue 15): `alert:responses` with the new counts (no names)
   * to the job's agencies, its units (issue 34: station boards) and the admins.
   */
  responsesChanged(change: {
    jobAlertId: number;
    agencyIds: number[];
    responding: number;
    not_available: number;
  }): void;
  /**
   * Receivers whose state changed (the checker's round) or whose silence a heartbeat ended (issue 33):
   * `receivers:changed` with their ids to the admins, whose Receivers tab reads the list again.
   */
  receiversChanged(receiverIds: number[]): void;
  /**
   * Station displays signed out (unpaired, removed, or paired with another screen: `keep` is that
   * screen's token hash): their screens get `display-signed-out` and their sockets close (issue 34).
   */
  displaysSignedOut(displayIds: number[], keep?: string): void;
  /** Feedback (SPEC 7, issue 13): each event goes to the admin room, and to the conversation's owner where it names one. */
  feedback(event: FeedbackLiveEvent): void;
};

/** A feedback change for the live channel; `ownerId` is the conversation's member (not sent). */
export type FeedbackLiveEvent =
  | {
      name: "feedback:new-conversation";
      payload: {
        conversationId: number;
        subject: string;
        user: { id: number; first_name: string; last_name: string };
      };
    }
  | {
      name: "feedback:new-message";
      ownerId: number;
      payload: { conversationId: number; messageId: number; isAdmin: boolean };
    }
  | {
      name: "feedback:media-converted";
      ownerId: number;
      payload: { conversationId: number; mediaId: number; status: "done" | "failed" };
    }
  | {
      name: "feedback:status-changed";
      ownerId: number;
      payload: { conversationId: number; status: string };
    };
