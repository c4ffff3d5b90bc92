-- Issue 27: the owner before the stranger. A device that has signed in holds a long-lived credential
-- bound to the user and phone (revocable by the user and admins); a code it asks for is its own
-- (credential_id), so strangers can neither void it nor use up its allowance. Recovery links made by
-- the operator's command are single use (recovery_redemptions).
CREATE TABLE "device_credentials" (
  "id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
  "user_id" integer NOT NULL REFERENCES "users"("id") ON DELETE CASCADE,
  "phone" varchar(20) NOT NULL,
  "device_id" varchar(128) NOT NULL,
  "device_info" jsonb DEFAULT '{}'::jsonb NOT NULL,
  "user_agent" text,
  "created_at" timestamp with time zone DEFAULT now() NOT NULL,
  "last_used_at" timestamp with time zone DEFAULT now() NOT NULL,
  "expires_at" timestamp with time zone NOT NULL,
  "revoked_at" timestamp with time zone,
  "revoked_by" varchar(16)
);
--> statement-breakpoint
CREATE INDEX "device_credentials_user_idx" ON "device_credentials" ("user_id") WHERE "revoked_at" IS NULL;
--> statement-breakpoint
ALTER TABLE "verification_codes" ADD COLUMN "credential_id" uuid REFERENCES "device_credentials"("id") ON DELETE CASCADE;
--> statement-breakpoint
CREATE TABLE "recovery_redemptions" (
  "token_id" varchar(64) PRIMARY KEY NOT NULL,
  "user_id" integer REFERENCES "users"("id") ON DELETE SET NULL,
  "redeemed_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
-- The ceiling on one phone's code requests from all strangers together drops from 20 to 6 per window
-- (the owner's device no longer shares it); an admin's own value is kept.
UPDATE "security_config" SET "value" = '6' WHERE "key" = 'otp_requests_per_phone_all' AND "value" = '20' AND "updated_by" IS NULL;
