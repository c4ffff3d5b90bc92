import PersonAddIcon from "@mui/icons-material/PersonAdd";
import SearchIcon from "@mui/icons-material/Search";
import Alert from "@mui/material/Alert";
import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import InputAdornment from "@mui/material/InputAdornment";
import Snackbar from "@mui/material/Snackbar";
import Stack from "@mui/material/Stack";
import TextField from "@mui/material/TextField";
import ToggleButton from "@mui/material/ToggleButton";
import ToggleButtonGroup from "@mui/material/ToggleButtonGroup";
import Typography from "@mui/material/Typography";
import { TOAST_MS, USERS_FETCH_LIMIT } from "@turnout/domain";
import { useState } from "react";
import { type Confirmation, ConfirmDialog } from "../../../ui/confirmation";
import { useDebounced } from "../../../ui/use-debounced";
import { QueryState } from "../data-view/query-state";
import {
  useDeleteUser,
  usePendingReviewCount,
  useResetInstallBanner,
  useSetUserActive,
  useUsers,
} from "./queries";
import { SessionsDialog } from "./sessions-dialog";
import { UserFormDialog } from "./user-form-dialog";
import { userStatusLabel } from "./user-status-chip";
import type { AdminUser, UserStatus } from "./users-api";
import { UsersTable } from "./users-table";

/** Typing pauses this long before the server is asked, so a name is one request, not one per letter. */
const SEARCH_DEBOUNCE_MS = 300;

type StatusFilter = UserStatus | "all";
const FILTERS: StatusFilter[] = ["all", "pending_review", "active", "unverified", "inactive"];

interface Notice {
  id: number;
  severity: "success" | "error";
  message: string;
}

function fullName(user: AdminUser): string {
  return `${user.first_name} ${user.last_name}`;
}

/**
 * The admin console's Users tab (SPEC 2, issue 11): the count, up to 1000 users searched and
 * filtered by the server and shown a page at a time, pending reviews one click away, and every
 * change to an account with its confirmation where it signs someone out or cannot be undone.
 */
export function UsersTab({ onError }: { onError?: (message: string) => void } = {}) {
  const [searchText, setSearchText] = useState("");
  const search = useDebounced(searchText, SEARCH_DEBOUNCE_MS);
  const [filter, setFilter] = useState<StatusFilter>("all");
  const users = useUsers({ search, status: filter === "all" ? null : filter });
  const pendingCount = usePendingReviewCount();
  const [selected, setSelected] = useState<ReadonlySet<number>>(new Set());
  const [editing, setEditing] = useState<{ user: AdminUser | null } | null>(null);
  const [sessionsOf, setSessionsOf] = useState<AdminUser | null>(null);
  const [confirmation, setConfirmation] = useState<Confirmation | null>(null);
  const [notice, setNotice] = useState<Notice | null>(null);
  const setActive = useSetUserActive();
  const deleteUser = useDeleteUser();
  const resetBanner = useResetInstallBanner();

  const tell = (severity: Notice["severity"], message: string) => {
    setNotice({ id: Date.now(), severity, message });
    if (severity === "error") onError?.(message);
  };
  const fail = (error: Error) => tell("error", error.message);

  const activate = (user: AdminUser) =>
    setActive.mutate(
      { user, isActive: true },
      { onSuccess: () => tell("success", `${fullName(user)} is active.`), onError: fail },
    );

  const askDeactivate = (user: AdminUser) =>
    setConfirmation({
      title: "Deactivate User",
      text: `Deactivate ${fullName(user)}? They cannot sign in or see alerts until an admin activates them again.`,
      confirmLabel: "Deactivate",
      destructive: true,
      onConfirm: () =>
        setActive.mutate(
          { user, isActive: false },
          {
            onSuccess: () => tell("success", `${fullName(user)} was deactivated.`),
            onError: fail,
            onSettled: () => setConfirmation(null),
          },
        ),
    });

  const askDelete = (user: AdminUser) =>
    setConfirmation({
      title: "Delete User",
      text: `Delete ${fullName(user)} (${user.phone})? Their account, sessions and alert rules are removed. This cannot be undone.`,
      confirmLabel: "Delete",
      destructive: true,
      onConfirm: () =>
        deleteUser.mutate(user, {
          onSuccess: () => {
            tell("success", `${fullName(user)} was deleted.`);
            setSelected((current) => new Set([...current].filter((id) => id !== user.id)));
          },
          onError: fail,
          onSettled: () => setConfirmation(null),
        }),
    });

  const resetSelected = () =>
    resetBanner.mutate([...selected], {
      onSuccess: (count) => {
        tell("success", `Install banner reset for ${count} user${count === 1 ? "" : "s"}.`);
        setSelected(new Set());
      },
      onError: fail,
    });

  const askResetAll = () =>
    setConfirmation({
      title: "Reset Install Banner for Everyone",
      text: "Show the install banner again to every user on their next start, whatever they chose before?",
      confirmLabel: "Reset for Everyone",
      destructive: false,
      onConfirm: () =>
        resetBanner.mutate(null, {
          onSuccess: (count) => tell("success", `Install banner reset for ${count} users.`),
          onError: fail,
          onSettled: () => setConfirmation(null),
        }),
    });

  const total = users.data?.total ?? 0;
  const filtered = search.trim() !== "" || filter !== "all";
  const busy = setActive.isPending || deleteUser.isPending || resetBanner.isPending;

  return (
    <Stack spacing={2} component="section" aria-labelledby="users-tab-title">
      <Stack direction="row" spacing={2} sx={{ alignItems: "center", flexWrap: "wrap", rowGap: 1 }}>
        <Typography id="users-tab-title" variant="h5" component="h2">
          Users
        </Typography>
        {users.data && (
          <Typography color="text.secondary" aria-live="polite">
            {total} {filtered ? "matching " : ""}
            {total === 1 ? "user" : "users"}
          </Typography>
        )}
        <Box sx={{ flexGrow: 1 }} />
        <Button variant="contained" startIcon={<PersonAddIcon />} onClick={() => setEditing({ user: null })}>
          Add User
        </Button>
      </Stack>

      <Stack direction={{ xs: "column", md: "row" }} spacing={2} sx={{ alignItems: { md: "center" } }}>
        <TextField
          label="Search users"
          placeholder="Name or phone"
          size="small"
          value={searchText}
          onChange={(event) => setSearchText(event.target.value)}
          slotProps={{
            input: {
              startAdornment: (
                <InputAdornment position="start">
                  <SearchIcon />
                </InputAdornment>
              ),
            },
          }}
          sx={{ minWidth: 260 }}
        />
        <ToggleButtonGroup
          exclusive
          size="small"
          aria-label="Show"
          value={filter}
          onChange={(_event, value: StatusFilter | null) => {
            if (value) setFilter(value);
          }}
          sx={{ flexWrap: "wrap" }}
        >
          {FILTERS.map((value) => (
            <ToggleButton
              key={value}
              value={value}
              color={value === "pending_review" ? "warning" : "standard"}
              sx={value === "pending_review" && pendingCount ? { fontWeight: 700 } : undefined}
            >
              {value === "all" ? "All" : userStatusLabel(value)}
              {value === "pending_review" && pendingCount ? ` (${pendingCount})` : ""}
            </ToggleButton>
          ))}
        </ToggleButtonGroup>
      </Stack>

      <Stack direction="row" spacing={1} sx={{ flexWrap: "wrap", rowGap: 1 }}>
        <Button variant="outlined" disabled={selected.size === 0 || busy} onClick={resetSelected}>
          Reset Install Banner{selected.size > 0 ? ` (${selected.size} selected)` : ""}
        </Button>
        <Button variant="outlined" color="warning" disabled={busy} onClick={askResetAll}>
          Reset Install Banner for Everyone
        </Button>
      </Stack>

      <QueryState query={users} loadingLabel="Loading users" isEmpty={() => false}>
        {(data) => (
          <>
            {data.total > data.users.length && (
              <Alert severity="info">
                Showing the first {Math.min(data.users.length, USERS_FETCH_LIMIT)} of {data.total}: search to
                find the others.
              </Alert>
            )}
            <UsersTable
              users={data.users}
              selected={selected}
              onSelectedChange={setSelected}
              actions={{
                onEdit: (user) => setEditing({ user }),
                onSessions: setSessionsOf,
                onActivate: activate,
                onDeactivate: askDeactivate,
                onDelete: askDelete,
              }}
              busy={busy}
            />
          </>
        )}
      </QueryState>

      <UserFormDialog
        open={editing !== null}
        user={editing?.user ?? null}
        onClose={() => setEditing(null)}
        onSaved={(message) => {
          setEditing(null);
          tell("success", message);
        }}
      />
      <SessionsDialog
        user={sessionsOf}
        onClose={() => setSessionsOf(null)}
        onDone={(message) => tell("success", message)}
      />
      <ConfirmDialog confirmation={confirmation} busy={busy} onCancel={() => setConfirmation(null)} />
      <Snackbar
        key={notice?.id}
        open={notice !== null}
        autoHideDuration={TOAST_MS}
        onClose={(_event, reason) => {
          if (reason !== "clickaway") setNotice(null);
        }}
        anchorOrigin={{ vertical: "bottom", horizontal: "center" }}
      >
        <Alert
          severity={notice?.severity ?? "success"}
          variant="filled"
          role={notice?.severity === "error" ? "alert" : "status"}
          onClose={() => setNotice(null)}
          sx={{ width: "100%" }}
        >
          {notice?.message}
        </Alert>
      </Snackbar>
    </Stack>
  );
}
