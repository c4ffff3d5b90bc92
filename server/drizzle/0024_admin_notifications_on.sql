-- Texting admins when an account awaits review is on by default (issue 26). Installs still holding the
-- old default, off, as seeded and never changed by an admin, take the new one.
UPDATE "app_settings"
SET "value" = '{"enabled": true, "admin_ids": []}'::jsonb, "updated_at" = now()
WHERE "key" = 'admin_notifications'
  AND "updated_by" IS NULL
  AND "value" = '{"new_registration_sms": false}'::jsonb;
