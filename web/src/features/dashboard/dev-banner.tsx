import { MESSAGES } from "@turnout/domain";
import "./dashboard.css";

/** The development-host banner of SPEC 2: black on amber, readable in both themes. */
export function DevBanner({ show }: { show: boolean }) {
  if (!show) return null;
  return (
    <div role="note" className="dashboard-dev-banner">
      {MESSAGES.DEV_BANNER}
    </div>
  );
}
