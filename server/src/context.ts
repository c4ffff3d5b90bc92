import type { Logger } from "pino";
import type { Cache } from "./cache/cache.js";
import type { Config } from "./config.js";
import type { Database } from "./db/client.js";
import type { DomainEventBus } from "./events.js";
import type { LiveEvents } from "./live/live-events.js";

/** What services need from the running server, passed explicitly rather than read from Fastify. */
export type ServiceContext = {
  db: Database;
  cache: Cache;
  config: Config;
  logger: Logger;
  /** Wakes the SMS worker after a commit that queued a message, so codes arrive in well under a second. */
  nudgeSms: () => void;
  /** The live channel; call it only after the transaction that made the change has committed. */
  live: LiveEvents;
  /** Domain events between modules (events.ts), subscribed in app.ts. */
  events: DomainEventBus;
};

/** Facts about the caller that services record (security events, device sessions). */
export type RequestMeta = {
  ip: string | null;
  userAgent: string | null;
  /** The device credential the caller presented (sign-in calls; issue 27), unchecked. */
  credential?: string | null;
  /** The proof-of-work solution the caller presented (`X-Altcha`), unchecked. */
  proofOfWork?: string | null;
};
