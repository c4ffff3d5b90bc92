import type { ServiceContext } from "./context.js";
import type { DomainEventBus } from "./events.js";
import { notifyAdminsOfPendingAccount } from "./modules/auto-activation/service.js";
import { mediaFileNames } from "./modules/feedback/service.js";
import { MediaStore } from "./modules/feedback/store.js";
import { placeAlerts } from "./modules/map/positions.js";
import { noteReceiverMessages, recordHeartbeat } from "./modules/receivers/service.js";
import { matchRulesAfterCommit, rulesChanged } from "./modules/rules/matcher.js";
import { removeAgencyFilters } from "./modules/user-filters/service.js";

/**
 * Who acts on each domain event (events.ts), in the order they act: part of assembling the app, so
 * that the modules themselves never import one another. README 'Architecture' lists these.
 */
export function subscribeModules(bus: DomainEventBus, ctx: ServiceContext): void {
  // Feedback: a deleted user's media files, noted before their rows go, removed once that is committed.
  bus.on("userDeleting", async ({ tx, userId }) => {
    const files = await mediaFileNames(tx, { userId });
    return () => new MediaStore(ctx.config.dataDir, ctx.config.jwtSecret).remove(files);
  });
  // Rules: a deleted user's rules went with them, so every matcher reloads its rules.
  bus.on("userDeleted", () => {
    rulesChanged(ctx);
    return undefined;
  });
  // Auto-activation: the admins chosen for it are texted, in the activating transaction.
  bus.on("accountAwaitingReview", async ({ tx, user }) => {
    await notifyAdminsOfPendingAccount(tx, user);
    return undefined;
  });
  // Rules: the matchers take newly stored pages off their queue now rather than at their next poll
  // (the pages are queued for them by a trigger in ingest's transaction).
  bus.on("pagesStored", () => {
    matchRulesAfterCommit(ctx);
    return undefined;
  });
  // Map: the new alerts' positions (issue 34), stored before their live event goes out, as a map
  // hearing it reads them at once.
  bus.on("alertsCreated", async ({ alerts }) => {
    await placeAlerts(ctx.db, alerts);
    return undefined;
  });
  // User filters: the filters naming a deleted agency go, in the deleting transaction.
  bus.on("agencyDeleting", async ({ tx, agencyId }) => {
    await removeAgencyFilters(tx, agencyId);
    return undefined;
  });
  // Receivers: stored pages are a receiver's sign of life and last page (written after the reply).
  bus.on("receiverHeard", ({ receiverId, messages }) => {
    noteReceiverMessages(ctx, receiverId, messages);
    return undefined;
  });
  // Receivers: a heartbeat is kept; one that ends a silence shows on the admins' Receivers tab at once
  // (the checker tells them at its next round).
  bus.on("heartbeatReceived", async ({ receiverId, heartbeat }) => {
    const { endsSilence } = await recordHeartbeat(ctx, receiverId, heartbeat);
    if (endsSilence) ctx.live.receiversChanged([receiverId]);
    return undefined;
  });
}
