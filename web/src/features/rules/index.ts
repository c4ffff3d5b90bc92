export { previewMatchesText } from "./rule-preview";
export { type RulePreviewResult, rulePreviewResultSchema } from "./rules-api";
