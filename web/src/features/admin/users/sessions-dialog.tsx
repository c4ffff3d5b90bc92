import Alert from "@mui/material/Alert";
import Button from "@mui/material/Button";
import Dialog from "@mui/material/Dialog";
import DialogActions from "@mui/material/DialogActions";
import DialogContent from "@mui/material/DialogContent";
import DialogTitle from "@mui/material/DialogTitle";
import List from "@mui/material/List";
import ListItem from "@mui/material/ListItem";
import ListItemText from "@mui/material/ListItemText";
import { formatDateTime } from "@turnout/domain";
import { useState } from "react";
import { type Confirmation, ConfirmDialog } from "../../../ui/confirmation";
import { QueryState } from "../data-view/query-state";
import { useTerminateSessions, useUserSessions } from "./queries";
import type { AdminUser, UserSession } from "./users-api";

function describe(session: UserSession): string {
  const parts = [
    session.ip_address && `IP ${session.ip_address}`,
    session.created_at && `signed in ${formatDateTime(session.created_at)}`,
    session.last_activity && `last active ${formatDateTime(session.last_activity)}`,
  ];
  return parts.filter(Boolean).join(" · ");
}

/** A user's device sessions, each with 'Sign out', and 'Sign out all'; both ask first. */
export function SessionsDialog({
  user,
  onClose,
  onDone,
}: {
  user: AdminUser | null;
  onClose: () => void;
  onDone: (message: string) => void;
}) {
  const sessions = useUserSessions(user?.id ?? null);
  const terminate = useTerminateSessions();
  const [confirmation, setConfirmation] = useState<Confirmation | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const name = user ? `${user.first_name} ${user.last_name}` : "";

  const end = (sessionId?: UserSession["id"]) => {
    if (!user) return;
    setFailure(null);
    terminate.mutate(
      { userId: user.id, sessionId },
      {
        onSuccess: (count) => onDone(`${count} session${count === 1 ? "" : "s"} of ${name} ended.`),
        onError: (error) => setFailure(error.message),
        onSettled: () => setConfirmation(null),
      },
    );
  };

  const askEnd = (session: UserSession) =>
    setConfirmation({
      title: "Sign Out Device",
      text: `Sign ${name} out on ${session.device_info || "this device"}? They will need a new code to sign in there.`,
      confirmLabel: "Sign Out",
      destructive: true,
      onConfirm: () => end(session.id),
    });

  const askEndAll = () =>
    setConfirmation({
      title: "Sign Out All Devices",
      text: `Sign ${name} out on every device? They will need a new code to sign in again.`,
      confirmLabel: "Sign Out All",
      destructive: true,
      onConfirm: () => end(),
    });

  const list = sessions.data ?? [];
  return (
    <>
      <Dialog open={user !== null} onClose={onClose} fullWidth maxWidth="sm">
        <DialogTitle>Sessions of {name}</DialogTitle>
        <DialogContent>
          {failure && (
            <Alert severity="error" sx={{ mb: 1 }}>
              {failure}
            </Alert>
          )}
          <QueryState
            query={sessions}
            loadingLabel="Loading sessions"
            spinnerSize={24}
            emptyText="No active sessions."
          >
            {(list) => (
              <List aria-label="Active sessions">
                {list.map((session) => (
                  <ListItem
                    key={session.id}
                    divider
                    secondaryAction={
                      <Button color="error" onClick={() => askEnd(session)}>
                        Sign Out
                      </Button>
                    }
                  >
                    <ListItemText
                      primary={session.device_info || "Unknown device"}
                      secondary={describe(session)}
                      sx={{ pr: 10 }}
                    />
                  </ListItem>
                ))}
              </List>
            )}
          </QueryState>
        </DialogContent>
        <DialogActions>
          {list.length > 0 && (
            <Button color="error" onClick={askEndAll} sx={{ mr: "auto" }}>
              Sign Out All
            </Button>
          )}
          <Button onClick={onClose}>Close</Button>
        </DialogActions>
      </Dialog>
      <ConfirmDialog
        confirmation={confirmation}
        busy={terminate.isPending}
        onCancel={() => setConfirmation(null)}
      />
    </>
  );
}
