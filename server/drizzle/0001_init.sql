CREATE TABLE "agencies" (
	"id" serial PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"code" varchar(32) NOT NULL,
	"description" text,
	"logo_path" text,
	"is_active" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "agencies_code_unique" UNIQUE("code")
);
--> statement-breakpoint
CREATE TABLE "alert_groups" (
	"id" serial PRIMARY KEY NOT NULL,
	"job_number" varchar(32) NOT NULL,
	"agency_id" integer,
	"has_emergency" boolean DEFAULT false NOT NULL,
	"message_count" integer DEFAULT 0 NOT NULL,
	"first_alert_at" timestamp with time zone NOT NULL,
	"last_alert_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "alert_recipients" (
	"alert_id" bigint NOT NULL,
	"capcode_id" integer NOT NULL,
	"agency_id" integer NOT NULL,
	CONSTRAINT "alert_recipients_alert_id_capcode_id_pk" PRIMARY KEY("alert_id","capcode_id")
);
--> statement-breakpoint
CREATE TABLE "alerts" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"type" varchar(16) NOT NULL,
	"raw_message" text NOT NULL,
	"message" text NOT NULL,
	"capcode" varchar(16) NOT NULL,
	"capcode_id" integer,
	"agency_id" integer NOT NULL,
	"area" text,
	"job_number" varchar(32),
	"group_id" integer,
	"primary_address" text,
	"has_mappable_address" boolean DEFAULT false NOT NULL,
	"directions_url" text,
	"latitude" text,
	"longitude" text,
	"source" varchar(64),
	"source_message_id" varchar(128),
	"dedupe_hash" varchar(64) NOT NULL,
	"sent_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "app_settings" (
	"key" varchar(64) PRIMARY KEY NOT NULL,
	"value" jsonb NOT NULL,
	"updated_by" integer,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "brute_force_locks" (
	"identifier" varchar(128) PRIMARY KEY NOT NULL,
	"kind" varchar(16) NOT NULL,
	"failures" integer DEFAULT 0 NOT NULL,
	"locked_until" timestamp with time zone,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "capcodes" (
	"id" serial PRIMARY KEY NOT NULL,
	"capcode" varchar(16) NOT NULL,
	"agency_id" integer NOT NULL,
	"alias" text,
	"area" text,
	"is_active" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "capcodes_capcode_unique" UNIQUE("capcode")
);
--> statement-breakpoint
CREATE TABLE "device_sessions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" integer NOT NULL,
	"device_id" varchar(128) NOT NULL,
	"device_info" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"user_agent" text,
	"ip_address" varchar(64),
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_activity" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"ended_at" timestamp with time zone,
	"end_reason" varchar(32)
);
--> statement-breakpoint
CREATE TABLE "feedback_conversations" (
	"id" serial PRIMARY KEY NOT NULL,
	"user_id" integer NOT NULL,
	"subject" text NOT NULL,
	"status" varchar(16) DEFAULT 'open' NOT NULL,
	"user_last_read_at" timestamp with time zone,
	"admin_last_read_at" timestamp with time zone,
	"last_message_at" timestamp with time zone DEFAULT now() NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "feedback_media" (
	"id" serial PRIMARY KEY NOT NULL,
	"message_id" integer NOT NULL,
	"file_name" text NOT NULL,
	"file_type" varchar(128) NOT NULL,
	"file_path" text NOT NULL,
	"thumbnail_path" text,
	"size_bytes" bigint NOT NULL,
	"conversion_status" varchar(16) DEFAULT 'none' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "feedback_messages" (
	"id" serial PRIMARY KEY NOT NULL,
	"conversation_id" integer NOT NULL,
	"sender_id" integer,
	"is_admin" boolean DEFAULT false NOT NULL,
	"message" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "grouping_patterns" (
	"id" serial PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"pattern" text NOT NULL,
	"description" text,
	"priority" integer DEFAULT 100 NOT NULL,
	"is_active" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "grouping_settings" (
	"key" varchar(64) PRIMARY KEY NOT NULL,
	"value" text NOT NULL,
	"description" text,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "ingest_keys" (
	"id" serial PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"key_hash" varchar(64) NOT NULL,
	"key_prefix" varchar(12) NOT NULL,
	"created_by" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_used_at" timestamp with time zone,
	"revoked_at" timestamp with time zone,
	CONSTRAINT "ingest_keys_key_hash_unique" UNIQUE("key_hash")
);
--> statement-breakpoint
CREATE TABLE "otp_attempts" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"user_id" integer,
	"phone" varchar(20) NOT NULL,
	"ip_address" varchar(64),
	"kind" varchar(16) NOT NULL,
	"success" boolean NOT NULL,
	"reason" varchar(64),
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "pending_session_evictions" (
	"id" serial PRIMARY KEY NOT NULL,
	"user_id" integer NOT NULL,
	"device_id" varchar(128) NOT NULL,
	"session_id" uuid NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "postcodes" (
	"id" serial PRIMARY KEY NOT NULL,
	"postcode" varchar(4) NOT NULL,
	"suburb" text NOT NULL,
	"state" varchar(3) NOT NULL,
	"latitude" text,
	"longitude" text
);
--> statement-breakpoint
CREATE TABLE "rule_triggers" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"rule_id" integer NOT NULL,
	"alert_id" bigint NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "security_config" (
	"key" varchar(64) PRIMARY KEY NOT NULL,
	"value" text NOT NULL,
	"description" text,
	"updated_by" integer,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "security_events" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"event_type" varchar(64) NOT NULL,
	"severity" varchar(16) DEFAULT 'info' NOT NULL,
	"user_id" integer,
	"identifier" varchar(64),
	"ip_address" varchar(64),
	"details" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sms_queue" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"to_phone" varchar(20) NOT NULL,
	"body" text NOT NULL,
	"kind" varchar(16) NOT NULL,
	"status" varchar(16) DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"max_attempts" integer DEFAULT 5 NOT NULL,
	"next_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
	"locked_at" timestamp with time zone,
	"last_error" text,
	"provider_message_id" text,
	"user_id" integer,
	"rule_trigger_id" bigint,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"sent_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "system_logs" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"level" varchar(16) NOT NULL,
	"category" varchar(64) NOT NULL,
	"message" text NOT NULL,
	"details" jsonb,
	"ip_address" varchar(64),
	"timestamp" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "user_agencies" (
	"user_id" integer NOT NULL,
	"agency_id" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "user_agencies_user_id_agency_id_pk" PRIMARY KEY("user_id","agency_id")
);
--> statement-breakpoint
CREATE TABLE "user_alert_rules" (
	"id" serial PRIMARY KEY NOT NULL,
	"user_id" integer NOT NULL,
	"name" text NOT NULL,
	"description" text,
	"keywords" jsonb NOT NULL,
	"agencies" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"priority_levels" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"status" varchar(16) DEFAULT 'pending' NOT NULL,
	"is_active" boolean DEFAULT true NOT NULL,
	"rejection_reason" text,
	"reviewed_by" integer,
	"reviewed_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "user_filters" (
	"id" serial PRIMARY KEY NOT NULL,
	"user_id" integer NOT NULL,
	"filter_type" varchar(32) NOT NULL,
	"filter_value" text NOT NULL,
	"is_enabled" boolean NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "users" (
	"id" serial PRIMARY KEY NOT NULL,
	"first_name" text NOT NULL,
	"last_name" text NOT NULL,
	"phone" varchar(20) NOT NULL,
	"is_admin" boolean DEFAULT false NOT NULL,
	"is_verified" boolean DEFAULT false NOT NULL,
	"is_active" boolean DEFAULT false NOT NULL,
	"max_sessions" integer,
	"postcode" varchar(4),
	"town_name" text,
	"state_name" varchar(3),
	"pwa_banner_reset_at" timestamp with time zone,
	"last_login_at" timestamp with time zone,
	"activated_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "users_phone_unique" UNIQUE("phone"),
	CONSTRAINT "users_max_sessions_positive" CHECK ("users"."max_sessions" IS NULL OR "users"."max_sessions" > 0)
);
--> statement-breakpoint
CREATE TABLE "verification_codes" (
	"id" serial PRIMARY KEY NOT NULL,
	"user_id" integer NOT NULL,
	"purpose" varchar(16) NOT NULL,
	"code_hash" text NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"consumed_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "alert_groups" ADD CONSTRAINT "alert_groups_agency_id_agencies_id_fk" FOREIGN KEY ("agency_id") REFERENCES "public"."agencies"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alert_recipients" ADD CONSTRAINT "alert_recipients_alert_id_alerts_id_fk" FOREIGN KEY ("alert_id") REFERENCES "public"."alerts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alert_recipients" ADD CONSTRAINT "alert_recipients_capcode_id_capcodes_id_fk" FOREIGN KEY ("capcode_id") REFERENCES "public"."capcodes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alert_recipients" ADD CONSTRAINT "alert_recipients_agency_id_agencies_id_fk" FOREIGN KEY ("agency_id") REFERENCES "public"."agencies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alerts" ADD CONSTRAINT "alerts_capcode_id_capcodes_id_fk" FOREIGN KEY ("capcode_id") REFERENCES "public"."capcodes"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alerts" ADD CONSTRAINT "alerts_agency_id_agencies_id_fk" FOREIGN KEY ("agency_id") REFERENCES "public"."agencies"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alerts" ADD CONSTRAINT "alerts_group_id_alert_groups_id_fk" FOREIGN KEY ("group_id") REFERENCES "public"."alert_groups"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "app_settings" ADD CONSTRAINT "app_settings_updated_by_users_id_fk" FOREIGN KEY ("updated_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "capcodes" ADD CONSTRAINT "capcodes_agency_id_agencies_id_fk" FOREIGN KEY ("agency_id") REFERENCES "public"."agencies"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "device_sessions" ADD CONSTRAINT "device_sessions_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "feedback_conversations" ADD CONSTRAINT "feedback_conversations_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "feedback_media" ADD CONSTRAINT "feedback_media_message_id_feedback_messages_id_fk" FOREIGN KEY ("message_id") REFERENCES "public"."feedback_messages"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "feedback_messages" ADD CONSTRAINT "feedback_messages_conversation_id_feedback_conversations_id_fk" FOREIGN KEY ("conversation_id") REFERENCES "public"."feedback_conversations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "feedback_messages" ADD CONSTRAINT "feedback_messages_sender_id_users_id_fk" FOREIGN KEY ("sender_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ingest_keys" ADD CONSTRAINT "ingest_keys_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "otp_attempts" ADD CONSTRAINT "otp_attempts_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "pending_session_evictions" ADD CONSTRAINT "pending_session_evictions_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "pending_session_evictions" ADD CONSTRAINT "pending_session_evictions_session_id_device_sessions_id_fk" FOREIGN KEY ("session_id") REFERENCES "public"."device_sessions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "rule_triggers" ADD CONSTRAINT "rule_triggers_rule_id_user_alert_rules_id_fk" FOREIGN KEY ("rule_id") REFERENCES "public"."user_alert_rules"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "rule_triggers" ADD CONSTRAINT "rule_triggers_alert_id_alerts_id_fk" FOREIGN KEY ("alert_id") REFERENCES "public"."alerts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "security_config" ADD CONSTRAINT "security_config_updated_by_users_id_fk" FOREIGN KEY ("updated_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "security_events" ADD CONSTRAINT "security_events_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sms_queue" ADD CONSTRAINT "sms_queue_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sms_queue" ADD CONSTRAINT "sms_queue_rule_trigger_id_rule_triggers_id_fk" FOREIGN KEY ("rule_trigger_id") REFERENCES "public"."rule_triggers"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "user_agencies" ADD CONSTRAINT "user_agencies_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "user_agencies" ADD CONSTRAINT "user_agencies_agency_id_agencies_id_fk" FOREIGN KEY ("agency_id") REFERENCES "public"."agencies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "user_alert_rules" ADD CONSTRAINT "user_alert_rules_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "user_alert_rules" ADD CONSTRAINT "user_alert_rules_reviewed_by_users_id_fk" FOREIGN KEY ("reviewed_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "user_filters" ADD CONSTRAINT "user_filters_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "verification_codes" ADD CONSTRAINT "verification_codes_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "alert_groups_job_number_idx" ON "alert_groups" USING btree ("job_number");--> statement-breakpoint
CREATE INDEX "alert_recipients_agency_idx" ON "alert_recipients" USING btree ("agency_id","alert_id");--> statement-breakpoint
CREATE INDEX "alerts_created_idx" ON "alerts" USING btree ("created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "alerts_agency_created_idx" ON "alerts" USING btree ("agency_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "alerts_dedupe_idx" ON "alerts" USING btree ("dedupe_hash","created_at");--> statement-breakpoint
CREATE INDEX "alerts_group_idx" ON "alerts" USING btree ("group_id");--> statement-breakpoint
CREATE INDEX "alerts_message_trgm_idx" ON "alerts" USING gin ("message" gin_trgm_ops);--> statement-breakpoint
CREATE UNIQUE INDEX "alerts_source_message_idx" ON "alerts" USING btree ("source","source_message_id") WHERE "alerts"."source_message_id" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "capcodes_agency_idx" ON "capcodes" USING btree ("agency_id");--> statement-breakpoint
CREATE INDEX "device_sessions_user_active_idx" ON "device_sessions" USING btree ("user_id") WHERE "device_sessions"."ended_at" IS NULL;--> statement-breakpoint
CREATE INDEX "feedback_conversations_user_idx" ON "feedback_conversations" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "feedback_conversations_status_idx" ON "feedback_conversations" USING btree ("status");--> statement-breakpoint
CREATE INDEX "feedback_media_message_idx" ON "feedback_media" USING btree ("message_id");--> statement-breakpoint
CREATE INDEX "feedback_messages_conversation_idx" ON "feedback_messages" USING btree ("conversation_id","created_at");--> statement-breakpoint
CREATE INDEX "otp_attempts_phone_time_idx" ON "otp_attempts" USING btree ("phone","created_at");--> statement-breakpoint
CREATE INDEX "otp_attempts_ip_time_idx" ON "otp_attempts" USING btree ("ip_address","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "pending_session_evictions_user_device_idx" ON "pending_session_evictions" USING btree ("user_id","device_id");--> statement-breakpoint
CREATE INDEX "postcodes_postcode_idx" ON "postcodes" USING btree ("postcode");--> statement-breakpoint
CREATE INDEX "postcodes_suburb_trgm_idx" ON "postcodes" USING gin ("suburb" gin_trgm_ops);--> statement-breakpoint
CREATE UNIQUE INDEX "postcodes_unique_idx" ON "postcodes" USING btree ("postcode","suburb","state");--> statement-breakpoint
CREATE UNIQUE INDEX "rule_triggers_rule_alert_idx" ON "rule_triggers" USING btree ("rule_id","alert_id");--> statement-breakpoint
CREATE INDEX "rule_triggers_rule_created_idx" ON "rule_triggers" USING btree ("rule_id","created_at");--> statement-breakpoint
CREATE INDEX "security_events_time_idx" ON "security_events" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "security_events_type_idx" ON "security_events" USING btree ("event_type");--> statement-breakpoint
CREATE INDEX "sms_queue_due_idx" ON "sms_queue" USING btree ("next_attempt_at") WHERE "sms_queue"."status" = 'pending';--> statement-breakpoint
CREATE INDEX "sms_queue_status_idx" ON "sms_queue" USING btree ("status","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "sms_queue_rule_trigger_idx" ON "sms_queue" USING btree ("rule_trigger_id") WHERE "sms_queue"."rule_trigger_id" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "system_logs_level_time_idx" ON "system_logs" USING btree ("level","timestamp");--> statement-breakpoint
CREATE INDEX "system_logs_time_idx" ON "system_logs" USING btree ("timestamp");--> statement-breakpoint
CREATE INDEX "user_agencies_agency_idx" ON "user_agencies" USING btree ("agency_id");--> statement-breakpoint
CREATE INDEX "user_alert_rules_user_idx" ON "user_alert_rules" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "user_alert_rules_status_idx" ON "user_alert_rules" USING btree ("status");--> statement-breakpoint
CREATE UNIQUE INDEX "user_filters_user_type_value_idx" ON "user_filters" USING btree ("user_id","filter_type","filter_value");--> statement-breakpoint
CREATE INDEX "verification_codes_user_purpose_idx" ON "verification_codes" USING btree ("user_id","purpose","created_at");