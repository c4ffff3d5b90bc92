// What the app composes of the alerts feature from outside it: the slots the dashboard fills.

export type { FeedSlots } from "./alert-feed";
