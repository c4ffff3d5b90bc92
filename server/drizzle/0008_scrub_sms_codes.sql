-- Custom SQL migration file, put your code below! --
-- Sign-in and activation codes left in clear in SMS that were already sent or failed for good: the
-- worker now removes the code in the statement that finishes such a message, and this removes it from
-- rows finished before that. Pending and sending rows keep theirs: they still have to be sent. The text
-- is the worker's own (CODE_REMOVED_BODY in server/src/sms/queue.ts).
UPDATE "sms_queue" SET "body" = '[one-time code removed]'
 WHERE "kind" IN ('otp', 'activation') AND "status" IN ('sent', 'failed') AND "body" <> '[one-time code removed]';
