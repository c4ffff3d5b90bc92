import { PRODUCT_NAME } from "@turnout/domain";
import type { ReactNode } from "react";
import type { LiveConnectionState } from "../../api/live-socket";
import type { SessionUser } from "../../api/types";
import { DevBanner } from "./dev-banner";
import { UserMenu, type UserMenuSlots } from "./user-menu";
import "./dashboard.css";

/** The product's name, one element for every render: React skips an element it rendered before. */
const TITLE = <p className="dashboard-header__title">{PRODUCT_NAME}</p>;

/**
 * The dashboard's header (SPEC 2): the development banner when the server runs in development,
 * then the product name, the view's buttons (search, filter) and the user menu. Dialogs other
 * features own (My Alerts, Feedback) come in through `dialogs`. Plain elements styled by
 * dashboard.css as MUI's sticky AppBar and Toolbar were (issue 31).
 */
export function DashboardHeader({
  user,
  connection,
  actions,
  onSignOut,
  slots,
  dialogs,
  isDevelopment = false,
}: {
  user: SessionUser;
  connection: LiveConnectionState;
  actions?: ReactNode;
  onSignOut: () => Promise<void>;
  slots?: UserMenuSlots;
  dialogs?: ReactNode;
  isDevelopment?: boolean;
}) {
  return (
    <>
      <DevBanner show={isDevelopment} />
      <header className="dashboard-header">
        <div className="dashboard-header__bar">
          {TITLE}
          {actions}
          <UserMenu user={user} connection={connection} onSignOut={onSignOut} slots={slots} />
        </div>
      </header>
      {dialogs}
    </>
  );
}
