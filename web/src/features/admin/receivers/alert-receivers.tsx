import List from "@mui/material/List";
import ListItem from "@mui/material/ListItem";
import ListItemText from "@mui/material/ListItemText";
import { formatDateTime } from "@turnout/domain";
import { JobViewSection } from "../../../ui/job-view-section";
import { errorText } from "../agencies/error-text";
import { QueryState } from "../data-view/query-state";
import { useAlertReceivers } from "./queries";
import type { AlertReceiver } from "./receivers-api";

function heardText(r: AlertReceiver): string {
  const copies = r.messages === 1 ? "1 copy" : `${r.messages} copies`;
  const first = formatDateTime(r.first_heard_at);
  return r.messages > 1 ? `${copies}, first at ${first}` : `At ${first}`;
}

/**
 * Which receivers heard an alert (issue 33), under the admin's job view: several receivers' copies of
 * one page are one alert, and each receiver that delivered a copy is named here, with when and how
 * many. Admins only: the server refuses anyone else.
 */
export function AlertReceivers({ alertId }: { alertId: number }) {
  const heard = useAlertReceivers(alertId);
  return (
    <JobViewSection title="Heard by">
      {(headingId) => (
        <QueryState
          query={heard}
          loadingLabel="Loading the receivers that heard this alert"
          spinnerSize={20}
          errorText={(error) => `Could not load the receivers: ${errorText(error)}`}
          emptyText="No receiver is recorded for this alert (it arrived before receivers were recorded)."
        >
          {(rows) => (
            <List dense disablePadding aria-labelledby={headingId}>
              {rows.map((r) => (
                <ListItem key={r.receiver_id} disableGutters>
                  <ListItemText
                    primary={r.deleted ? `${r.name} (deleted)` : r.name}
                    secondary={heardText(r)}
                  />
                </ListItem>
              ))}
            </List>
          )}
        </QueryState>
      )}
    </JobViewSection>
  );
}
