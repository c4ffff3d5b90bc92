import type { Heartbeat } from "@turnout/domain";
import type { Database } from "./db/client.js";

/**
 * Domain events: what one module's change means for other modules, published by the module that owns
 * the change and subscribed where the app is assembled (app.ts, subscribeModules), so that no module
 * imports another. The bus is in-process and synchronous: `publish` awaits every handler in the order
 * they subscribed. An event whose payload carries `tx` is published inside the owner's transaction,
 * and its handlers' writes commit or roll back with it (as when the owner called them directly); a
 * handler may return work to run once that transaction has committed (publish returns it, and the
 * owner runs it with runAfterCommit). Events without `tx` are published after the commit.
 */
export type DomainEvents = {
  /**
   * A user is being deleted (users module), in the deleting transaction, before the user's row goes
   * (its cascades take their feedback rows with it).
   */
  userDeleting: { tx: Database; userId: number };
  /** A user was deleted and that is committed (users module). */
  userDeleted: { userId: number };
  /**
   * A verified account now waits for an admin's review (auth module, activation without
   * auto-activation), in the activating transaction.
   */
  accountAwaitingReview: { tx: Database; user: { id: number; firstName: string; lastName: string } };
  /** An agency is being deleted (agencies module), in the deleting transaction. */
  agencyDeleting: { tx: Database; agencyId: number };
  /**
   * Ingest committed pages (ingest module): new alerts, and pages added to existing ones. Handlers run
   * after the caller's reply is on its way and must not hold it (nudge, do not wait).
   */
  pagesStored: { createdAlertIds: readonly number[]; addedToAlertIds: readonly number[] };
  /**
   * A receiver's pages are stored (ingest module, after the commit; `messages` as received, duplicates
   * included): they count as its sign of life and its last page (issue 33).
   */
  receiverHeard: { receiverId: number; messages: number };
  /** A receiver sent a heartbeat (ingest module): its status and sign of life are kept (issue 33). */
  heartbeatReceived: { receiverId: number; heartbeat: Heartbeat };
  /**
   * New alerts are committed (ingest module). Their live event waits for the handlers, so they must be
   * quick (no table seeding: the map places the alerts from the bundled localities kept in memory).
   */
  alertsCreated: { alerts: readonly { id: number; message: string }[] };
};

export type DomainEventName = keyof DomainEvents;
/** Work a handler leaves for after the publisher's commit. */
export type AfterCommit = () => Promise<void>;
export type DomainEventHandler<K extends DomainEventName> = (
  payload: DomainEvents[K],
) => Promise<AfterCommit | undefined> | AfterCommit | undefined;

export class DomainEventBus {
  private readonly handlers = new Map<DomainEventName, DomainEventHandler<never>[]>();

  /** Subscribes a handler (app.ts). Handlers run in the order they subscribed. */
  on<K extends DomainEventName>(name: K, handler: DomainEventHandler<K>): void {
    this.handlers.set(name, [...(this.handlers.get(name) ?? []), handler as DomainEventHandler<never>]);
  }

  /**
   * Runs every handler of the event, one after another (a handler's error reaches the publisher, and
   * rolls back its transaction when the event carries one). Resolves to the handlers' after-commit work.
   */
  async publish<K extends DomainEventName>(name: K, payload: DomainEvents[K]): Promise<AfterCommit[]> {
    const later: AfterCommit[] = [];
    for (const handler of this.handlers.get(name) ?? []) {
      const work = await (handler as DomainEventHandler<K>)(payload);
      if (work) later.push(work);
    }
    return later;
  }
}

/** Runs the after-commit work that handlers returned, in order. */
export async function runAfterCommit(work: readonly AfterCommit[]): Promise<void> {
  for (const w of work) await w();
}
