-- Issue 34: station turnout boards. A display is a screen of one unit; it is paired by a code the
-- screen shows (display_pairings: single use, expiring), and its token is the screen's own secret,
-- kept here only as a hash. Displays are no users and no devices: no device limit counts them.
CREATE TABLE "displays" (
  "id" serial PRIMARY KEY NOT NULL,
  "unit_id" integer NOT NULL REFERENCES "units"("id") ON DELETE CASCADE,
  "name" text NOT NULL,
  "idle_minutes" integer DEFAULT 30 NOT NULL,
  "token_hash" varchar(64),
  "paired_at" timestamp with time zone,
  "last_seen_at" timestamp with time zone,
  "created_by" integer REFERENCES "users"("id") ON DELETE SET NULL,
  "created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "displays_token_idx" ON "displays" ("token_hash") WHERE "token_hash" IS NOT NULL;
--> statement-breakpoint
CREATE TABLE "display_pairings" (
  "secret_hash" varchar(64) PRIMARY KEY NOT NULL,
  "code" varchar(8) NOT NULL UNIQUE,
  "expires_at" timestamp with time zone NOT NULL,
  "created_at" timestamp with time zone DEFAULT now() NOT NULL
);
