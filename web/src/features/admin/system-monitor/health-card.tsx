import CheckCircleIcon from "@mui/icons-material/CheckCircle";
import ErrorIcon from "@mui/icons-material/Error";
import InfoIcon from "@mui/icons-material/Info";
import WarningIcon from "@mui/icons-material/Warning";
import Box from "@mui/material/Box";
import Chip from "@mui/material/Chip";
import Typography from "@mui/material/Typography";
import { HEALTH_ALL_OK_TEXT, type HealthStatus } from "@turnout/domain";
import { type CardFreshness, MonitorCard } from "./monitor-card";
import type { SystemHealth } from "./monitor-types";

const OVERALL: Record<
  HealthStatus,
  { label: string; color: "success" | "warning" | "error"; icon: typeof ErrorIcon }
> = {
  healthy: { label: "Healthy", color: "success", icon: CheckCircleIcon },
  warning: { label: "Warning", color: "warning", icon: WarningIcon },
  critical: { label: "Critical", color: "error", icon: ErrorIcon },
};

function IssueList({
  title,
  items,
  color,
}: {
  title: string;
  items: string[];
  color: "error" | "warning" | "info";
}) {
  if (items.length === 0) return null;
  const Icon = color === "error" ? ErrorIcon : color === "warning" ? WarningIcon : InfoIcon;
  return (
    <Box>
      <Typography variant="subtitle2" component="h3">
        {title}
      </Typography>
      <Box component="ul" sx={{ m: 0, pl: 0, listStyle: "none" }}>
        {items.map((item) => (
          <Box component="li" key={item} sx={{ display: "flex", alignItems: "center", gap: 1, py: 0.25 }}>
            <Icon color={color} fontSize="small" aria-hidden="true" />
            <Typography variant="body2">{item}</Typography>
          </Box>
        ))}
      </Box>
    </Box>
  );
}

/**
 * The health card (SPEC 2): the environment badge, the overall status, the critical issues and the
 * warnings, or 'All systems operational' when there are neither, then information that is no problem
 * (e.g. 'Single instance (no Redis)'); a skeleton while loading.
 */
export function HealthCard({
  health,
  freshness,
}: {
  health: SystemHealth | undefined;
  freshness: CardFreshness;
}) {
  const overall = health ? OVERALL[health.overall] : null;
  const OverallIcon = overall?.icon ?? CheckCircleIcon;
  return (
    <MonitorCard
      title="System Health"
      freshness={freshness}
      wide
      chip={
        health ? (
          <Chip
            label={health.environment === "development" ? "Development" : "Production"}
            color={health.environment === "development" ? "warning" : "primary"}
            variant="outlined"
            size="small"
          />
        ) : null
      }
    >
      {health && overall ? (
        <Box sx={{ display: "flex", flexDirection: "column", gap: 1.5 }}>
          <Box sx={{ display: "flex", alignItems: "center", gap: 1 }}>
            <Typography variant="body1">Overall status:</Typography>
            <Chip
              icon={<OverallIcon aria-hidden="true" />}
              label={overall.label}
              color={overall.color}
              sx={{ fontWeight: 700 }}
            />
          </Box>
          {health.issues.length === 0 && health.warnings.length === 0 ? (
            <Typography sx={{ display: "flex", alignItems: "center", gap: 1 }}>
              <CheckCircleIcon color="success" aria-hidden="true" />
              {HEALTH_ALL_OK_TEXT}
            </Typography>
          ) : null}
          <IssueList title="Critical issues" items={health.issues} color="error" />
          <IssueList title="Warnings" items={health.warnings} color="warning" />
          <IssueList title="Information" items={health.notes} color="info" />
        </Box>
      ) : null}
    </MonitorCard>
  );
}
