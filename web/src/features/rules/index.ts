// What other features (the admin console's User Alerts tab) may use of the rules feature.

export { RuleStatusChip, STATUS_PRESENTATION } from "./rule-list";
export { previewMatchesText } from "./rule-preview";
export { type RulePreviewResult, rulePreviewResultSchema } from "./rules-api";
