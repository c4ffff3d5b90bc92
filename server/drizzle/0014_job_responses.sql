CREATE TABLE "job_responses" (
	"job_alert_id" bigint NOT NULL,
	"user_id" integer NOT NULL,
	"status" varchar(16) NOT NULL,
	"eta_minutes" integer,
	"answered_at" timestamp (3) with time zone NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "job_responses_job_alert_id_user_id_pk" PRIMARY KEY("job_alert_id","user_id"),
	CONSTRAINT "job_responses_status_check" CHECK ("job_responses"."status" in ('responding', 'not_available')),
	CONSTRAINT "job_responses_eta_check" CHECK ("job_responses"."eta_minutes" is null or "job_responses"."eta_minutes" in (5, 10, 15))
);
--> statement-breakpoint
ALTER TABLE "job_responses" ADD CONSTRAINT "job_responses_job_alert_id_alerts_id_fk" FOREIGN KEY ("job_alert_id") REFERENCES "public"."alerts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "job_responses" ADD CONSTRAINT "job_responses_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "job_responses_user_idx" ON "job_responses" USING btree ("user_id");