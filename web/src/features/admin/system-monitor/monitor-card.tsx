import Alert from "@mui/material/Alert";
import Box from "@mui/material/Box";
import Card from "@mui/material/Card";
import CardContent from "@mui/material/CardContent";
import LinearProgress from "@mui/material/LinearProgress";
import Skeleton from "@mui/material/Skeleton";
import Typography from "@mui/material/Typography";
import type { BarColor } from "@turnout/domain";
import { type ReactNode, useId } from "react";
import { formatPercent } from "./format";

/** Where a card's figures stand: loaded (and when), still loading, or the last load failed. */
export interface CardFreshness {
  hasData: boolean;
  /** The last load failed; figures shown, if any, are from `updatedAt`. */
  failed: boolean;
  updatedAt: number;
}

function timeOf(ms: number): string {
  return new Date(ms).toLocaleTimeString("en-AU", { hour: "2-digit", minute: "2-digit", second: "2-digit" });
}

/**
 * One monitor card: a heading, a chip beside it, then its figures; a skeleton until the first load,
 * and a plain note when the last refresh failed (the figures stay, marked stale, SPEC 9).
 */
export function MonitorCard({
  title,
  chip,
  freshness,
  children,
  wide = false,
}: {
  title: string;
  chip?: ReactNode;
  freshness: CardFreshness;
  children: ReactNode;
  wide?: boolean;
}) {
  const headingId = useId();
  const { hasData, failed, updatedAt } = freshness;
  return (
    <Card
      component="section"
      aria-labelledby={headingId}
      variant="outlined"
      sx={{ gridColumn: wide ? "1 / -1" : undefined, display: "flex", flexDirection: "column" }}
    >
      <CardContent sx={{ display: "flex", flexDirection: "column", gap: 1.5 }}>
        <Box sx={{ display: "flex", alignItems: "center", gap: 1, flexWrap: "wrap" }}>
          <Typography id={headingId} variant="h6" component="h2" sx={{ flexGrow: 1 }}>
            {title}
          </Typography>
          {hasData ? chip : null}
        </Box>
        {failed && hasData ? (
          <Alert severity="warning" variant="outlined" sx={{ py: 0 }}>
            {`Stale: could not refresh. Figures from ${timeOf(updatedAt)}.`}
          </Alert>
        ) : null}
        {failed && !hasData ? (
          <Alert severity="warning" variant="outlined" sx={{ py: 0 }}>
            Could not load these figures. Trying again every minute.
          </Alert>
        ) : null}
        {hasData ? (
          children
        ) : failed ? null : (
          <Box role="status" aria-label={`Loading ${title}`}>
            <Skeleton variant="text" width="60%" />
            <Skeleton variant="text" width="80%" />
            <Skeleton variant="text" width="40%" />
          </Box>
        )}
      </CardContent>
    </Card>
  );
}

/** Label-value pairs as a description list; `null` rows are left out. */
export function FigureList({ rows }: { rows: Array<[label: string, value: ReactNode] | null> }) {
  return (
    <Box
      component="dl"
      sx={{ display: "grid", gridTemplateColumns: "auto 1fr", columnGap: 2, rowGap: 0.5, m: 0 }}
    >
      {rows
        .filter((row): row is [string, ReactNode] => row !== null)
        .map(([label, value]) => (
          <Box key={label} sx={{ display: "contents" }}>
            <Typography component="dt" variant="body2" sx={{ color: "text.secondary" }}>
              {label}
            </Typography>
            <Typography
              component="dd"
              variant="body2"
              sx={{ m: 0, fontWeight: 600, overflowWrap: "anywhere" }}
            >
              {value}
            </Typography>
          </Box>
        ))}
    </Box>
  );
}

/** A labelled usage bar in a SPEC 9 colour; the figure is also written out, so colour is not the only cue. */
export function MetricBar({
  label,
  percent,
  color,
  detail,
}: {
  label: string;
  percent: number | null;
  color: (percent: number) => BarColor;
  detail?: string;
}) {
  const value = percent === null ? null : Math.min(100, Math.max(0, percent));
  return (
    <Box>
      <Box sx={{ display: "flex", justifyContent: "space-between", gap: 1 }}>
        <Typography variant="body2">{label}</Typography>
        <Typography variant="body2" sx={{ fontWeight: 600 }}>
          {formatPercent(percent)}
          {detail ? ` (${detail})` : ""}
        </Typography>
      </Box>
      <LinearProgress
        variant="determinate"
        value={value ?? 0}
        color={value === null ? "inherit" : color(value)}
        aria-label={label}
        data-color={value === null ? "none" : color(value)}
        sx={{ height: 8, borderRadius: 4, mt: 0.5 }}
      />
    </Box>
  );
}
