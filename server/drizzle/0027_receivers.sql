-- Receivers as first-class (issue 33): each receiver has its own ingest keys (stored hashed, several
-- valid at once during a rotation), heartbeats and a silence state; every alert records which
-- receivers heard it; delivery-side alarms keep their state in monitor_alarms.
CREATE TABLE IF NOT EXISTS "receivers" (
  "id" serial PRIMARY KEY,
  "name" text NOT NULL,
  "location" text,
  "expected_capcodes" text[] NOT NULL DEFAULT '{}',
  "expected_agency_ids" integer[] NOT NULL DEFAULT '{}',
  "kind" varchar(16) NOT NULL DEFAULT 'receiver',
  "ingest_key_id" integer UNIQUE REFERENCES "ingest_keys"("id") ON DELETE SET NULL,
  "heartbeat_interval_seconds" integer NOT NULL DEFAULT 60,
  "down_after_seconds" integer NOT NULL DEFAULT 600,
  "quiet_after_seconds" integer,
  "learned_quiet_seconds" integer,
  "learned_at" timestamp with time zone,
  "state" varchar(16) NOT NULL DEFAULT 'unknown',
  "state_since" timestamp with time zone NOT NULL DEFAULT now(),
  "last_seen_at" timestamp with time zone,
  "last_heartbeat_at" timestamp with time zone,
  "last_message_at" timestamp with time zone,
  "last_status" jsonb,
  "created_at" timestamp with time zone NOT NULL DEFAULT now(),
  "updated_at" timestamp with time zone NOT NULL DEFAULT now(),
  "deleted_at" timestamp with time zone,
  CONSTRAINT "receivers_kind_check" CHECK ("kind" IN ('receiver', 'legacy')),
  CONSTRAINT "receivers_state_check" CHECK ("state" IN ('unknown', 'ok', 'late', 'down', 'quiet'))
);
--> statement-breakpoint
CREATE UNIQUE INDEX IF NOT EXISTS "receivers_legacy_idx" ON "receivers" ("kind") WHERE "kind" = 'legacy';
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS "receiver_keys" (
  "id" serial PRIMARY KEY,
  "receiver_id" integer NOT NULL REFERENCES "receivers"("id") ON DELETE CASCADE,
  "key_hash" varchar(64) NOT NULL UNIQUE,
  "key_prefix" varchar(12) NOT NULL,
  "created_by" integer REFERENCES "users"("id") ON DELETE SET NULL,
  "created_at" timestamp with time zone NOT NULL DEFAULT now(),
  "expires_at" timestamp with time zone,
  "revoked_at" timestamp with time zone,
  "last_used_at" timestamp with time zone
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "receiver_keys_receiver_idx" ON "receiver_keys" ("receiver_id");
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS "alert_receivers" (
  "alert_id" bigint NOT NULL REFERENCES "alerts"("id") ON DELETE CASCADE,
  "receiver_id" integer NOT NULL REFERENCES "receivers"("id") ON DELETE CASCADE,
  "first_heard_at" timestamp with time zone NOT NULL DEFAULT now(),
  "last_heard_at" timestamp with time zone NOT NULL DEFAULT now(),
  "messages" integer NOT NULL DEFAULT 1,
  PRIMARY KEY ("alert_id", "receiver_id")
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "alert_receivers_receiver_idx" ON "alert_receivers" ("receiver_id", "first_heard_at");
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS "monitor_alarms" (
  "key" varchar(64) PRIMARY KEY,
  "state" varchar(16) NOT NULL,
  "since" timestamp with time zone NOT NULL DEFAULT now(),
  "detail" jsonb
);
--> statement-breakpoint
-- The shared INGEST_API_KEY is the legacy receiver. A PagerMon reader heartbeats only by its pages, so
-- it is late and down on a longer scale by default.
INSERT INTO "receivers" ("name", "kind", "heartbeat_interval_seconds", "down_after_seconds")
VALUES ('Legacy shared key (INGEST_API_KEY)', 'legacy', 900, 3600)
ON CONFLICT DO NOTHING;
--> statement-breakpoint
-- Keys an admin issued before receivers existed: one receiver each, named after the key.
INSERT INTO "receivers" ("name", "ingest_key_id", "heartbeat_interval_seconds", "down_after_seconds")
SELECT k."name", k."id", 900, 3600 FROM "ingest_keys" k
WHERE NOT EXISTS (SELECT 1 FROM "receivers" r WHERE r."ingest_key_id" = k."id");
