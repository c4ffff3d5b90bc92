import { describe, expect, it } from "vitest";
import { FEEDBACK_ATTACHMENT_MAX_BYTES } from "./constants.js";
import {
  canReplyToConversation,
  checkAttachment,
  FILE_TOO_LARGE_TITLE,
  feedbackMessageSchema,
  formatBadgeCount,
  needsVideoConversion,
  newFeedbackSchema,
  SIMULATED_UPLOAD_PROGRESS_MAX,
  UNSUPPORTED_FILE_TITLE,
  uploadProgressShown,
} from "./feedback.js";

const MB = 1024 * 1024;

describe("checkAttachment", () => {
  it("accepts the listed image and video types", () => {
    for (const type of ["image/jpeg", "image/jpg", "image/png", "image/gif", "image/webp", "image/heic"]) {
      expect(checkAttachment({ size: MB, type })).toEqual({ ok: true, kind: "image" });
    }
    for (const type of ["video/mp4", "video/quicktime", "video/webm"]) {
      expect(checkAttachment({ size: MB, type })).toEqual({ ok: true, kind: "video" });
    }
  });

  it("accepts any other image or video type", () => {
    expect(checkAttachment({ size: MB, type: "image/avif" })).toEqual({ ok: true, kind: "image" });
    expect(checkAttachment({ size: MB, type: "video/x-msvideo" })).toEqual({ ok: true, kind: "video" });
  });

  it("rejects other types with a clear dialog", () => {
    const result = checkAttachment({ size: MB, type: "application/pdf", name: "report.pdf" });
    expect(result).toMatchObject({ ok: false, title: UNSUPPORTED_FILE_TITLE });
  });

  it("falls back to the file name when the browser gives no type", () => {
    expect(checkAttachment({ size: MB, type: "", name: "IMG_0001.HEIC" })).toEqual({
      ok: true,
      kind: "image",
    });
    expect(checkAttachment({ size: MB, type: "", name: "clip.mov" })).toEqual({ ok: true, kind: "video" });
    expect(checkAttachment({ size: MB, type: "" }).ok).toBe(false);
  });

  it("accepts a file just under 100 MB", () => {
    expect(checkAttachment({ size: FEEDBACK_ATTACHMENT_MAX_BYTES - 1, type: "video/mp4" }).ok).toBe(true);
  });

  it("rejects a file of exactly 100 MB as too large", () => {
    expect(checkAttachment({ size: FEEDBACK_ATTACHMENT_MAX_BYTES, type: "video/mp4" })).toEqual({
      ok: false,
      title: FILE_TOO_LARGE_TITLE,
      message: "The selected file is 100.0MB. Please choose a file smaller than 100MB.",
    });
  });

  it("reports the size in MB to one decimal place", () => {
    const result = checkAttachment({ size: 150.25 * MB, type: "video/quicktime" });
    expect(result).toMatchObject({
      message: "The selected file is 150.3MB. Please choose a file smaller than 100MB.",
    });
  });

  it("uses 100 MiB as the limit", () => {
    expect(FEEDBACK_ATTACHMENT_MAX_BYTES).toBe(104_857_600);
  });
});

describe("needsVideoConversion", () => {
  it("converts videos other than mp4 and webm", () => {
    expect(needsVideoConversion("video/quicktime")).toBe(true);
    expect(needsVideoConversion("video/x-msvideo")).toBe(true);
  });

  it("does not convert mp4, webm or images", () => {
    expect(needsVideoConversion("video/mp4")).toBe(false);
    expect(needsVideoConversion("VIDEO/WEBM")).toBe(false);
    expect(needsVideoConversion("image/heic")).toBe(false);
  });
});

describe("formatBadgeCount", () => {
  it("is empty for zero", () => {
    expect(formatBadgeCount(0)).toBe("");
    expect(formatBadgeCount(-1)).toBe("");
  });

  it("shows counts up to 9 and caps at '9+'", () => {
    expect(formatBadgeCount(1)).toBe("1");
    expect(formatBadgeCount(9)).toBe("9");
    expect(formatBadgeCount(10)).toBe("9+");
    expect(formatBadgeCount(250)).toBe("9+");
  });
});

describe("conversations", () => {
  it("cannot reply to a closed conversation", () => {
    expect(canReplyToConversation("closed")).toBe(false);
    expect(canReplyToConversation("open")).toBe(true);
    expect(canReplyToConversation("in_progress")).toBe(true);
  });

  it("requires a non-blank subject and message", () => {
    expect(newFeedbackSchema.parse({ subject: " Map ", message: " Wrong pin " })).toEqual({
      subject: "Map",
      message: "Wrong pin",
    });
    expect(newFeedbackSchema.safeParse({ subject: " ", message: "x" }).success).toBe(false);
    expect(newFeedbackSchema.safeParse({ subject: "x", message: "" }).success).toBe(false);
  });

  it("requires non-blank text for a reply", () => {
    expect(feedbackMessageSchema.safeParse({ message: "   " }).success).toBe(false);
    expect(feedbackMessageSchema.safeParse({ message: "thanks" }).success).toBe(true);
  });
});

describe("upload progress", () => {
  it("starts at 0 and rises while only simulated, never past 85 %", () => {
    expect(uploadProgressShown(0, 0)).toBe(0);
    const early = uploadProgressShown(1_000, 0);
    const later = uploadProgressShown(5_000, 0);
    expect(early).toBeGreaterThan(0);
    expect(later).toBeGreaterThan(early);
    expect(uploadProgressShown(10 * 60_000, 0)).toBe(SIMULATED_UPLOAD_PROGRESS_MAX);
  });

  it("keeps the simulated figure while the real one is behind it", () => {
    expect(uploadProgressShown(10 * 60_000, 40)).toBe(85);
  });

  it("follows the real figure once it passes the simulated one, up to 100", () => {
    expect(uploadProgressShown(10 * 60_000, 92.6)).toBe(92);
    expect(uploadProgressShown(100, 50)).toBe(50);
    expect(uploadProgressShown(10 * 60_000, 100)).toBe(100);
    expect(uploadProgressShown(100, 250)).toBe(100);
  });

  it("reads nonsense as nothing", () => {
    expect(uploadProgressShown(Number.NaN, Number.NaN)).toBe(0);
    expect(uploadProgressShown(-5, -5)).toBe(0);
  });
});
