import DeleteIcon from "@mui/icons-material/Delete";
import DevicesIcon from "@mui/icons-material/Devices";
import EditIcon from "@mui/icons-material/Edit";
import Button from "@mui/material/Button";
import Checkbox from "@mui/material/Checkbox";
import Chip from "@mui/material/Chip";
import IconButton from "@mui/material/IconButton";
import Paper from "@mui/material/Paper";
import Stack from "@mui/material/Stack";
import { alpha } from "@mui/material/styles";
import Table from "@mui/material/Table";
import TableBody from "@mui/material/TableBody";
import TableCell from "@mui/material/TableCell";
import TableContainer from "@mui/material/TableContainer";
import TableHead from "@mui/material/TableHead";
import TablePagination from "@mui/material/TablePagination";
import TableRow from "@mui/material/TableRow";
import Tooltip from "@mui/material/Tooltip";
import { DEFAULT_MAX_DEVICE_SESSIONS, formatRelativeTime } from "@turnout/domain";
import { useEffect, useState } from "react";
import { UserStatusChip } from "./user-status-chip";
import type { AdminUser } from "./users-api";

/** Rows on one page: the DOM holds one page, never all 1000 users. */
const ROWS_PER_PAGE_OPTIONS = [25, 50, 100];
const DEFAULT_ROWS_PER_PAGE = 50;

export interface UserRowActions {
  onEdit: (user: AdminUser) => void;
  onSessions: (user: AdminUser) => void;
  onActivate: (user: AdminUser) => void;
  onDeactivate: (user: AdminUser) => void;
  onDelete: (user: AdminUser) => void;
}

function fullName(user: AdminUser): string {
  return `${user.first_name} ${user.last_name}`;
}

/** The users a page at a time, with a checkbox per row for the install-banner reset. */
export function UsersTable({
  users,
  selected,
  onSelectedChange,
  actions,
  busy,
}: {
  users: AdminUser[];
  selected: ReadonlySet<number>;
  onSelectedChange: (selected: ReadonlySet<number>) => void;
  actions: UserRowActions;
  busy: boolean;
}) {
  const [page, setPage] = useState(0);
  const [rowsPerPage, setRowsPerPage] = useState(DEFAULT_ROWS_PER_PAGE);
  const lastPage = Math.max(0, Math.ceil(users.length / rowsPerPage) - 1);
  // A new search or a deleted user can leave fewer pages than the one on screen.
  useEffect(() => {
    if (page > lastPage) setPage(lastPage);
  }, [page, lastPage]);
  const shownPage = Math.min(page, lastPage);
  const rows = users.slice(shownPage * rowsPerPage, (shownPage + 1) * rowsPerPage);
  const now = Date.now();

  const pageIds = rows.map((user) => user.id);
  const pageSelected = pageIds.filter((id) => selected.has(id)).length;
  const toggle = (id: number) => {
    const next = new Set(selected);
    if (next.has(id)) next.delete(id);
    else next.add(id);
    onSelectedChange(next);
  };
  const togglePage = () => {
    const next = new Set(selected);
    if (pageSelected === pageIds.length) for (const id of pageIds) next.delete(id);
    else for (const id of pageIds) next.add(id);
    onSelectedChange(next);
  };

  if (users.length === 0) {
    return (
      <Paper variant="outlined" sx={{ p: 3, textAlign: "center" }}>
        No users found
      </Paper>
    );
  }

  return (
    <Paper variant="outlined">
      <TableContainer>
        <Table size="small" aria-label="Users">
          <TableHead>
            <TableRow>
              <TableCell padding="checkbox">
                <Checkbox
                  checked={pageIds.length > 0 && pageSelected === pageIds.length}
                  indeterminate={pageSelected > 0 && pageSelected < pageIds.length}
                  onChange={togglePage}
                  slotProps={{ input: { "aria-label": "Select all users on this page" } }}
                />
              </TableCell>
              <TableCell>Name</TableCell>
              <TableCell>Phone</TableCell>
              <TableCell>Status</TableCell>
              <TableCell>Agencies</TableCell>
              <TableCell>Sessions</TableCell>
              <TableCell>Last activity</TableCell>
              <TableCell align="right">Actions</TableCell>
            </TableRow>
          </TableHead>
          <TableBody>
            {rows.map((user) => {
              const name = fullName(user);
              const pending = user.status === "pending_review";
              return (
                <TableRow
                  key={user.id}
                  hover
                  selected={selected.has(user.id)}
                  aria-label={name}
                  sx={pending ? { bgcolor: (theme) => alpha(theme.palette.warning.main, 0.12) } : undefined}
                >
                  <TableCell padding="checkbox">
                    <Checkbox
                      checked={selected.has(user.id)}
                      onChange={() => toggle(user.id)}
                      slotProps={{ input: { "aria-label": `Select ${name}` } }}
                    />
                  </TableCell>
                  <TableCell>
                    <Stack direction="row" spacing={1} sx={{ alignItems: "center" }}>
                      <span>{name}</span>
                      {user.is_admin && (
                        <Chip size="small" label="Admin" color="primary" variant="outlined" />
                      )}
                    </Stack>
                  </TableCell>
                  <TableCell>{user.phone}</TableCell>
                  <TableCell>
                    <UserStatusChip status={user.status} />
                  </TableCell>
                  <TableCell>
                    {user.agencies.length > 0
                      ? user.agencies.map((agency) => agency.code).join(", ")
                      : "None"}
                  </TableCell>
                  <TableCell>
                    {user.active_sessions} / {user.max_sessions ?? DEFAULT_MAX_DEVICE_SESSIONS}
                  </TableCell>
                  <TableCell>
                    {user.last_activity ? formatRelativeTime(user.last_activity, now) : "Never"}
                  </TableCell>
                  <TableCell align="right" sx={{ whiteSpace: "nowrap" }}>
                    {user.is_active ? (
                      <Button size="small" disabled={busy} onClick={() => actions.onDeactivate(user)}>
                        Deactivate
                      </Button>
                    ) : (
                      <Button
                        size="small"
                        variant={pending ? "contained" : "text"}
                        color={pending ? "warning" : "primary"}
                        disabled={busy}
                        onClick={() => actions.onActivate(user)}
                      >
                        Activate
                      </Button>
                    )}
                    <Tooltip title="Edit">
                      <IconButton aria-label={`Edit ${name}`} onClick={() => actions.onEdit(user)}>
                        <EditIcon fontSize="small" />
                      </IconButton>
                    </Tooltip>
                    <Tooltip title="Sessions">
                      <IconButton aria-label={`Sessions of ${name}`} onClick={() => actions.onSessions(user)}>
                        <DevicesIcon fontSize="small" />
                      </IconButton>
                    </Tooltip>
                    <Tooltip title="Delete">
                      <IconButton
                        aria-label={`Delete ${name}`}
                        color="error"
                        disabled={busy}
                        onClick={() => actions.onDelete(user)}
                      >
                        <DeleteIcon fontSize="small" />
                      </IconButton>
                    </Tooltip>
                  </TableCell>
                </TableRow>
              );
            })}
          </TableBody>
        </Table>
      </TableContainer>
      <TablePagination
        component="div"
        count={users.length}
        page={shownPage}
        rowsPerPage={rowsPerPage}
        rowsPerPageOptions={ROWS_PER_PAGE_OPTIONS}
        onPageChange={(_event, next) => setPage(next)}
        onRowsPerPageChange={(event) => {
          setRowsPerPage(Number(event.target.value));
          setPage(0);
        }}
      />
    </Paper>
  );
}
