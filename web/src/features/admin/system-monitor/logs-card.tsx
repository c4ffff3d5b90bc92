import DeleteSweepIcon from "@mui/icons-material/DeleteSweep";
import Alert from "@mui/material/Alert";
import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import Chip from "@mui/material/Chip";
import ToggleButton from "@mui/material/ToggleButton";
import ToggleButtonGroup from "@mui/material/ToggleButtonGroup";
import Typography from "@mui/material/Typography";
import { useId, useState } from "react";
import { useConfirmation } from "../../../ui/confirmation";
import { capitalise, formatWhen } from "./format";
import { type CardFreshness, MonitorCard } from "./monitor-card";
import { LOG_LEVELS, LOG_PAGE_SIZE, type LogLevelFilter, type LogPage } from "./monitor-types";
import { useClearLogs } from "./queries";

const LEVEL_COLOR: Record<string, "error" | "warning" | "info" | "default"> = {
  critical: "error",
  error: "error",
  warn: "warning",
  info: "info",
};

function countNote(shown: number, total: number): string {
  if (total > shown) return `Showing first ${shown} of ${total} logs`;
  return total === 1 ? "1 log" : `${total} logs`;
}

/**
 * The system logs (SPEC 2): a level filter (all, critical, error, warn, info), the newest 50 entries
 * with 'Showing first 50 of N logs' when there are more, and clearing them all after a confirmation.
 */
export function LogsCard({
  logs,
  freshness,
  level,
  onLevelChange,
}: {
  logs: LogPage | undefined;
  freshness: CardFreshness;
  level: LogLevelFilter;
  onLevelChange: (level: LogLevelFilter) => void;
}) {
  const confirm = useConfirmation();
  const [cleared, setCleared] = useState<string | null>(null);
  const clear = useClearLogs();
  const filterLabelId = useId();

  const handleClear = () => {
    setCleared(null);
    clear.mutate(undefined, {
      onSuccess: (count) => {
        confirm.close();
        setCleared(count === 1 ? "Cleared 1 log." : `Cleared ${count} logs.`);
      },
    });
  };

  const shown = logs ? logs.data.slice(0, LOG_PAGE_SIZE) : [];
  return (
    <MonitorCard title="System logs" freshness={freshness} wide>
      <Box sx={{ display: "flex", alignItems: "center", gap: 2, flexWrap: "wrap" }}>
        <Typography id={filterLabelId} variant="body2">
          Level
        </Typography>
        <ToggleButtonGroup
          size="small"
          exclusive
          value={level}
          aria-labelledby={filterLabelId}
          onChange={(_event, next: LogLevelFilter | null) => {
            if (next) onLevelChange(next);
          }}
        >
          {(["all", ...LOG_LEVELS] as const).map((option) => (
            <ToggleButton key={option} value={option} sx={{ px: 1.5 }}>
              {capitalise(option)}
            </ToggleButton>
          ))}
        </ToggleButtonGroup>
        <Box sx={{ flexGrow: 1 }} />
        <Button
          color="error"
          variant="outlined"
          startIcon={<DeleteSweepIcon aria-hidden="true" />}
          onClick={() =>
            confirm.ask({
              title: "Clear all system logs?",
              text: "Every log entry, of every level, is deleted for good. This cannot be undone.",
              confirmLabel: "Clear all logs",
              onConfirm: handleClear,
            })
          }
          disabled={!logs || logs.total === 0}
        >
          Clear logs
        </Button>
      </Box>
      {cleared ? (
        <Alert severity="success" onClose={() => setCleared(null)}>
          {cleared}
        </Alert>
      ) : null}
      {logs ? (
        <>
          <Typography variant="body2" sx={{ color: "text.secondary" }}>
            {countNote(shown.length, logs.total)}
          </Typography>
          {shown.length === 0 ? (
            <Typography>No log entries{level === "all" ? "" : ` at level ${level}`}.</Typography>
          ) : (
            <Box component="ol" aria-label="Log entries" sx={{ m: 0, p: 0, listStyle: "none" }}>
              {shown.map((entry) => (
                <Box
                  component="li"
                  key={entry.id}
                  sx={{
                    display: "grid",
                    gridTemplateColumns: "84px 170px 1fr",
                    gap: 1.5,
                    alignItems: "baseline",
                    py: 0.75,
                    borderTop: 1,
                    borderColor: "divider",
                  }}
                >
                  <Chip
                    size="small"
                    label={entry.level.toUpperCase()}
                    color={LEVEL_COLOR[entry.level] ?? "default"}
                  />
                  <Typography variant="body2" sx={{ color: "text.secondary" }}>
                    {formatWhen(entry.timestamp)}
                  </Typography>
                  <Typography variant="body2" sx={{ overflowWrap: "anywhere" }}>
                    {entry.category ? <strong>{`${entry.category}: `}</strong> : null}
                    {entry.message}
                    {entry.ip_address ? ` (${entry.ip_address})` : ""}
                  </Typography>
                </Box>
              ))}
            </Box>
          )}
        </>
      ) : null}
      {confirm.dialog({ busy: clear.isPending, error: clear.isError ? clear.error.message : null })}
    </MonitorCard>
  );
}
