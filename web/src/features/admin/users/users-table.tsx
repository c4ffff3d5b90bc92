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
import Tooltip from "@mui/material/Tooltip";
import { DEFAULT_MAX_DEVICE_SESSIONS, formatRelativeTime } from "@turnout/domain";
import { DataTable } from "../data-view/data-table";
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

function UserActions({ user, actions, busy }: { user: AdminUser; actions: UserRowActions; busy: boolean }) {
  const name = fullName(user);
  const pending = user.status === "pending_review";
  return (
    <>
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
    </>
  );
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
  const now = Date.now();
  const toggle = (id: number) => {
    const next = new Set(selected);
    if (next.has(id)) next.delete(id);
    else next.add(id);
    onSelectedChange(next);
  };
  const selectAll = (pageRows: readonly AdminUser[]) => {
    const pageIds = pageRows.map((user) => user.id);
    const pageSelected = pageIds.filter((id) => selected.has(id)).length;
    const togglePage = () => {
      const next = new Set(selected);
      if (pageSelected === pageIds.length) for (const id of pageIds) next.delete(id);
      else for (const id of pageIds) next.add(id);
      onSelectedChange(next);
    };
    return (
      <Checkbox
        checked={pageIds.length > 0 && pageSelected === pageIds.length}
        indeterminate={pageSelected > 0 && pageSelected < pageIds.length}
        onChange={togglePage}
        slotProps={{ input: { "aria-label": "Select all users on this page" } }}
      />
    );
  };

  if (users.length === 0) {
    return (
      <Paper variant="outlined" sx={{ p: 3, textAlign: "center" }}>
        No users found
      </Paper>
    );
  }

  return (
    <DataTable
      label="Users"
      rows={users}
      rowKey={(user) => user.id}
      outlined
      paging={{ rowsPerPageOptions: ROWS_PER_PAGE_OPTIONS, rowsPerPage: DEFAULT_ROWS_PER_PAGE }}
      rowProps={(user) => ({
        hover: true,
        selected: selected.has(user.id),
        "aria-label": fullName(user),
        sx:
          user.status === "pending_review"
            ? { bgcolor: (theme) => alpha(theme.palette.warning.main, 0.12) }
            : undefined,
      })}
      columns={[
        {
          header: selectAll,
          padding: "checkbox",
          cell: (user) => (
            <Checkbox
              checked={selected.has(user.id)}
              onChange={() => toggle(user.id)}
              slotProps={{ input: { "aria-label": `Select ${fullName(user)}` } }}
            />
          ),
        },
        {
          header: "Name",
          cell: (user) => (
            <Stack direction="row" spacing={1} sx={{ alignItems: "center" }}>
              <span>{fullName(user)}</span>
              {user.is_admin && <Chip size="small" label="Admin" color="primary" variant="outlined" />}
            </Stack>
          ),
        },
        { header: "Phone", cell: (user) => user.phone },
        { header: "Status", cell: (user) => <UserStatusChip status={user.status} /> },
        {
          header: "Agencies",
          cell: (user) =>
            user.agencies.length > 0 ? user.agencies.map((agency) => agency.code).join(", ") : "None",
        },
        {
          header: "Sessions",
          cell: (user) => `${user.active_sessions} / ${user.max_sessions ?? DEFAULT_MAX_DEVICE_SESSIONS}`,
        },
        {
          header: "Last activity",
          cell: (user) => (user.last_activity ? formatRelativeTime(user.last_activity, now) : "Never"),
        },
      ]}
      actionsAlign="right"
      actions={(user) => <UserActions user={user} actions={actions} busy={busy} />}
    />
  );
}
