export * from "./constants.js";
export * from "./otp.js";
export * from "./phone.js";
export * from "./session.js";
