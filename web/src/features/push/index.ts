// What the dashboard uses of push notifications (issue 15).

export { PushDialog } from "./push-dialog";
export { usePushMessages } from "./use-push-messages";
