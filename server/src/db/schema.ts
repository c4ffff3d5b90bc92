// The database schema, one file per area under schema/ (each table with its references beside it).
// This barrel is what drizzle.config.ts and the code import.
export * from "./schema/agencies.js";
export * from "./schema/alerts.js";
export * from "./schema/feedback.js";
export * from "./schema/ingest.js";
export * from "./schema/map.js";
export * from "./schema/member-settings.js";
export * from "./schema/operations.js";
export * from "./schema/push.js";
export * from "./schema/receivers.js";
export * from "./schema/responding.js";
export * from "./schema/sms.js";
export * from "./schema/users.js";
