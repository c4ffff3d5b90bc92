import Alert from "@mui/material/Alert";
import Button from "@mui/material/Button";
import CircularProgress from "@mui/material/CircularProgress";
import Table from "@mui/material/Table";
import TableBody from "@mui/material/TableBody";
import TableCell from "@mui/material/TableCell";
import TableHead from "@mui/material/TableHead";
import TableRow from "@mui/material/TableRow";
import Typography from "@mui/material/Typography";
import { useQuery } from "@tanstack/react-query";
import { formatDateTime } from "@turnout/domain";
import { useCallback, useState } from "react";
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

  if (unmapped.isError) return <Alert severity="error">{errorText(unmapped.error)}</Alert>;
  if (!unmapped.data) return <CircularProgress size={24} aria-label="Loading unmapped capcodes" />;
  return (
    <>
      {unmapped.data.length === 0 ? (
        <Typography color="text.secondary">Every capcode paged so far belongs to an agency.</Typography>
      ) : (
        <Table size="small" aria-label="Unmapped capcodes">
          <TableHead>
            <TableRow>
              <TableCell>Capcode</TableCell>
              <TableCell>Alias</TableCell>
              <TableCell align="right">Messages</TableCell>
              <TableCell>Last seen</TableCell>
              <TableCell align="right">Actions</TableCell>
            </TableRow>
          </TableHead>
          <TableBody>
            {unmapped.data.map((row) => (
              <TableRow key={row.id}>
                <TableCell sx={{ fontFamily: "monospace" }}>{row.capcode}</TableCell>
                <TableCell>{row.alias}</TableCell>
                <TableCell align="right">{row.message_count}</TableCell>
                <TableCell>{row.last_seen ? formatDateTime(row.last_seen) : "Never"}</TableCell>
                <TableCell align="right" sx={{ whiteSpace: "nowrap" }}>
                  <Button
                    size="small"
                    onClick={() => setMessagesOf(row)}
                    aria-label={`Messages of capcode ${row.capcode}`}
                  >
                    Messages
                  </Button>
                  <Button
                    size="small"
                    variant="contained"
                    onClick={() => setAssigning({ id: row.id, capcode: row.capcode, alias: row.alias })}
                    aria-label={`Assign capcode ${row.capcode}`}
                  >
                    Assign
                  </Button>
                </TableCell>
              </TableRow>
            ))}
          </TableBody>
        </Table>
      )}
      <CapcodeAssignDialog target={assigning} onClose={closeAssign} />
      <CapcodeMessagesDialog target={messagesOf} onClose={() => setMessagesOf(null)} />
    </>
  );
}
