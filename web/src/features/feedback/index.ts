// What other parts of the app (the dashboard, the admin console's Feedback tab) use of the feedback feature.

export { ConversationList } from "./conversation-list";
export type { Conversation } from "./feedback-api";
export { FEEDBACK_STATUS_PRESENTATION } from "./feedback-status";
export { FeedbackThreadView } from "./feedback-thread";
export { MyFeedbackDialog } from "./my-feedback-dialog";
export {
  useAdminConversations,
  useAdminFeedbackLive,
  useAdminFeedbackUnread,
  useDeleteConversation,
  useFeedbackStats,
  useFeedbackUnread,
  useRefreshBadgeOnOpen,
  useSetStatus,
} from "./queries";
