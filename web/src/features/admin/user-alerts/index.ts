export { usePendingRuleCount } from "./queries";
