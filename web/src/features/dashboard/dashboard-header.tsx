import AppBar from "@mui/material/AppBar";
import Toolbar from "@mui/material/Toolbar";
import Typography from "@mui/material/Typography";
import { PRODUCT_NAME } from "@turnout/domain";
import type { ReactNode } from "react";
import type { LiveConnectionState } from "../../api/live-socket";
import type { SessionUser } from "../../api/types";
import { DevBanner } from "./dev-banner";
import { UserMenu, type UserMenuSlots } from "./user-menu";

/** The product's name, one element for every render: React skips an element it rendered before. */
const TITLE = (
  <Typography variant="h6" component="p" sx={{ flexGrow: 1, fontWeight: 700 }}>
    {PRODUCT_NAME}
  </Typography>
);

/**
 * The dashboard's header (SPEC 2): the development banner when the server runs in development,
 * then the product name, the view's buttons (search, filter) and the user menu. Dialogs other
 * features own (My Alerts, Feedback) come in through `dialogs`.
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
      <AppBar position="sticky" color="primary">
        <Toolbar sx={{ gap: 0.5, px: { xs: 1, sm: 2 } }}>
          {TITLE}
          {actions}
          <UserMenu user={user} connection={connection} onSignOut={onSignOut} slots={slots} />
        </Toolbar>
      </AppBar>
      {dialogs}
    </>
  );
}
