import { useQuery } from "@tanstack/react-query";
import { formatDateTime } from "@turnout/domain";
import { useCallback, useState } from "react";
import { AdminList } from "../data-view/admin-list";
import { type AssignTarget, CapcodeAssignDialog } from "./capcode-assign-dialog";
import { CapcodeMessagesDialog, type MessagesTarget } from "./capcode-messages-dialog";
import { errorText } from "./error-text";
import { unmappedCapcodesQueryOptions } from "./queries";

/** Capcodes paged but not yet under any agency: how often and when last, their messages, and assign. */
export function UnmappedCapcodes() {
  const unmapped = useQuery(unmappedCapcodesQueryOptions());
  const [assigning, setAssigning] = useState<AssignTarget | null>(null);
  const [messagesOf, setMessagesOf] = useState<MessagesTarget | null>(null);
  const closeAssign = useCallback(() => setAssigning(null), []);

  return (
    <>
      <AdminList
        query={unmapped}
        loadingLabel="Loading unmapped capcodes"
        spinnerSize={24}
        errorText={errorText}
        emptyText="Every capcode paged so far belongs to an agency."
        label="Unmapped capcodes"
        rowKey={(row) => row.id}
        actionsAlign="right"
        columns={[
          { header: "Capcode", cell: (row) => row.capcode, sx: { fontFamily: "monospace" } },
          { header: "Alias", cell: (row) => row.alias },
          { header: "Messages", cell: (row) => row.message_count, align: "right" },
          { header: "Last seen", cell: (row) => (row.last_seen ? formatDateTime(row.last_seen) : "Never") },
        ]}
        actions={[
          {
            label: "Messages",
            ariaLabel: (row) => `Messages of capcode ${row.capcode}`,
            onClick: setMessagesOf,
          },
          {
            label: "Assign",
            variant: "contained",
            ariaLabel: (row) => `Assign capcode ${row.capcode}`,
            onClick: (row) => setAssigning({ id: row.id, capcode: row.capcode, alias: row.alias }),
          },
        ]}
      />
      <CapcodeAssignDialog target={assigning} onClose={closeAssign} />
      <CapcodeMessagesDialog target={messagesOf} onClose={() => setMessagesOf(null)} />
    </>
  );
}
