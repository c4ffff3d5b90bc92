import { MESSAGES, uploadProgressShown } from "@turnout/domain";
import { useEffect, useRef, useState } from "react";
import { isApiError } from "../../api/errors";
import { feedbackApi } from "./feedback-api";
import { useRefreshConversation } from "./queries";

/** How often the simulated share of the progress bar moves on. */
const PROGRESS_TICK_MS = 200;

/**
 * What to say about a refused upload: the server's own words for a refusal the member can act on (too
 * large, a type it does not take, a closed conversation), the SPEC 8 text for anything else.
 */
export function uploadErrorMessage(error: unknown): string {
  if (isApiError(error) && [400, 409, 413].includes(error.status) && error.serverMessage) {
    return error.serverMessage;
  }
  return MESSAGES.FEEDBACK_UPLOAD_FAILED;
}

/**
 * Uploads one attachment with a progress bar (SPEC 9): `progress` is null while idle, else the
 * percentage to show, simulated up to 85 % and real once the real figure is ahead.
 */
export function useAttachmentUpload() {
  const refresh = useRefreshConversation();
  const [progress, setProgress] = useState<number | null>(null);
  const timer = useRef<ReturnType<typeof setInterval> | undefined>(undefined);
  const controller = useRef<AbortController | null>(null);

  useEffect(
    () => () => {
      clearInterval(timer.current);
      controller.current?.abort();
    },
    [],
  );

  const upload = async (conversationId: number, file: File, message: string) => {
    const startedAt = Date.now();
    let real = 0;
    const show = () => setProgress(uploadProgressShown(Date.now() - startedAt, real));
    setProgress(0);
    clearInterval(timer.current);
    timer.current = setInterval(show, PROGRESS_TICK_MS);
    controller.current = new AbortController();
    try {
      return await feedbackApi.uploadAttachment(
        conversationId,
        file,
        message,
        (percent) => {
          real = percent;
          show();
        },
        controller.current.signal,
      );
    } finally {
      clearInterval(timer.current);
      controller.current = null;
      setProgress(null);
      refresh(conversationId);
    }
  };

  return { upload, progress, uploading: progress !== null };
}
