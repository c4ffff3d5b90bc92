import { describe, expect, it } from "vitest";
import { capcodeAssignFailedMessage, ERROR_TYPES, errorTypeColor, isErrorType, MESSAGES } from "./errors.js";

describe("error types", () => {
  it("colours rate_limited red, account_not_activated blue and user_not_found yellow", () => {
    expect(errorTypeColor("rate_limited")).toBe("error");
    expect(errorTypeColor("account_not_activated")).toBe("info");
    expect(errorTypeColor("user_not_found")).toBe("warning");
  });

  it("colours other and unknown types red", () => {
    expect(errorTypeColor("network_error")).toBe("error");
    expect(errorTypeColor("something_else")).toBe("error");
    expect(errorTypeColor(null)).toBe("error");
  });

  it("recognises the listed error types only", () => {
    expect(ERROR_TYPES).toContain("validation_error");
    expect(isErrorType("rate_limited")).toBe(true);
    expect(isErrorType("toString")).toBe(false);
    expect(isErrorType(42)).toBe(false);
  });
});

describe("MESSAGES", () => {
  it("holds the spec's texts verbatim", () => {
    expect(MESSAGES.SESSION_EXPIRED).toBe("Your session has expired. Please log in again.");
    expect(MESSAGES.NOT_AUTHORIZED).toBe(
      "You are not authorized to access this resource. Please log in again.",
    );
    expect(MESSAGES.LOGIN_RATE_LIMITED).toMatch(/^SECURITY ALERT: Too many login attempts detected! /);
    expect(MESSAGES.USER_NOT_FOUND).toBe(
      "User not found. Please check your phone number or create an account.",
    );
    expect(MESSAGES.JOB_NOT_FOUND).toBe("Message not found.");
    expect(MESSAGES.ACTIVATION_CODE_EXPIRY_NOTE).toBe("Code expires in 10 minutes");
    expect(MESSAGES.DEV_BANNER).toBe("DEV ENVIRONMENT - Test server - Shares database - SMS disabled");
  });

  it("has no empty text", () => {
    for (const text of Object.values(MESSAGES)) expect(text.trim()).not.toBe("");
  });

  it("builds the capcode failure text", () => {
    expect(capcodeAssignFailedMessage("Agency not found")).toBe("Failed to capcode: Agency not found");
  });
});
