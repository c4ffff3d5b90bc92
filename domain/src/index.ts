export * from "./constants.js";
export * from "./job-number.js";
export * from "./keywords.js";
export * from "./live-filter.js";
export * from "./message.js";
export * from "./otp.js";
export * from "./phone.js";
export * from "./session.js";
