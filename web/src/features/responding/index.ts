// What other parts of the app (the dashboard, the admin console's Alerts tab) use of "who is responding".

export { AdminJobResponses } from "./admin-job-responses";
export { CardAnswersToggle, type CardPanel, CardResponses } from "./card-responses";
export { JobResponses } from "./job-responses";
export { RespondingProvider } from "./responding-provider";
