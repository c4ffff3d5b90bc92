export { FeedbackTab } from "./feedback-tab";
