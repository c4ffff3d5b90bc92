// What the dashboard uses of the feedback feature (the admin console's tab is composed in web/src/app).

export { MyFeedbackDialog } from "./my-feedback-dialog";
export { useFeedbackUnread } from "./unread";
