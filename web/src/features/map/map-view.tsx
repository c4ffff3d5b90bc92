import Alert from "@mui/material/Alert";
import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import CircularProgress from "@mui/material/CircularProgress";
import List from "@mui/material/List";
import ListItemButton from "@mui/material/ListItemButton";
import ListItemText from "@mui/material/ListItemText";
import MenuItem from "@mui/material/MenuItem";
import TextField from "@mui/material/TextField";
import ToggleButton from "@mui/material/ToggleButton";
import ToggleButtonGroup from "@mui/material/ToggleButtonGroup";
import Typography from "@mui/material/Typography";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { type FeedView, typePresentation } from "@turnout/domain";
import { type ReactNode, useEffect, useMemo, useState } from "react";
import { alertTime } from "../../api/alerts";
import { subscribeLiveEvents } from "../../api/live-events";
import { JobMap, type MapMarker } from "../../ui/job-map";
import { relativeTimeLabel } from "../../ui/time-labels";
import { useNow } from "../../ui/use-now";
import { type MapJob, mapApi, mapKeys, PRECISION_LABELS } from "./map-api";

/** Windows a member can pick, in hours; the server's default is added when it is another. */
const HOUR_CHOICES = [3, 12, 24, 72];
/** The window slides: the jobs are read again this often even without a live event. */
const REFRESH_MS = 60_000;

const short = (text: string, max = 80) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/**
 * The map of active jobs (issue 34): the jobs of the member's units (or whole agencies) paged in the
 * last hours, on a map beside the feed. New jobs come in live (the feed's live channel relays them),
 * a tap opens the job popup, and when tiles cannot load the jobs stay readable as a list. Loaded on
 * demand, so the feed's bundle does not carry Leaflet.
 */
export function MapView({
  renderJob,
}: {
  /** The job popup for the job tapped (null: closed), composed by the app with its extra sections. */
  renderJob: (jobId: string | null, onClose: () => void) => ReactNode;
}) {
  const queryClient = useQueryClient();
  const [hours, setHours] = useState<number | null>(null);
  const [view, setView] = useState<FeedView>("units");
  const [openJob, setOpenJob] = useState<string | null>(null);
  const [tilesFailed, setTilesFailed] = useState(() => typeof navigator !== "undefined" && !navigator.onLine);
  const now = useNow(30_000);
  const settings = useQuery({ queryKey: mapKeys.settings(), queryFn: mapApi.settings, staleTime: Infinity });
  const jobs = useQuery({
    queryKey: mapKeys.jobs(hours, view),
    queryFn: () => mapApi.jobs(hours, view),
    refetchInterval: REFRESH_MS,
  });

  // Live: a new page, or the page in its rooms (on opening, after a drop: pages may have been missed),
  // reads the jobs again.
  useEffect(
    () =>
      subscribeLiveEvents(["new-alert", "rooms-joined"], () => {
        void queryClient.invalidateQueries({ queryKey: mapKeys.all });
      }),
    [queryClient],
  );

  const list = jobs.data?.jobs ?? [];
  const newestId = list[0]?.alert.id ?? null;
  const markers = useMemo<MapMarker[]>(
    () =>
      list.map((job) => ({
        id: job.alert.id,
        latitude: job.position.latitude,
        longitude: job.position.longitude,
        type: job.alert.type,
        label: `${typePresentation(job.alert.type).label}: ${short(job.alert.primary_address ?? job.alert.message, 60)}`,
        newest: job.alert.id === newestId,
      })),
    [list, newestId],
  );
  const windowHours = hours ?? settings.data?.hours ?? 24;
  const choices = [...new Set([...HOUR_CHOICES, settings.data?.hours ?? 24])].sort((a, b) => a - b);

  return (
    <Box
      component="main"
      sx={{
        flex: 1,
        display: "flex",
        flexDirection: "column",
        minHeight: 0,
        px: { xs: 1, sm: 2 },
        py: 1,
        gap: 1,
      }}
    >
      <Box sx={{ display: "flex", flexWrap: "wrap", alignItems: "center", gap: 1 }}>
        <ToggleButtonGroup
          size="small"
          exclusive
          value={view}
          onChange={(_event, value: FeedView | null) => value && setView(value)}
          aria-label="Whose jobs"
        >
          <ToggleButton value="units">My units</ToggleButton>
          <ToggleButton value="agencies">My agencies</ToggleButton>
        </ToggleButtonGroup>
        <TextField
          select
          size="small"
          label="Paged in the last"
          value={windowHours}
          onChange={(event) => setHours(Number(event.target.value))}
          sx={{ minWidth: 150 }}
        >
          {choices.map((h) => (
            <MenuItem key={h} value={h}>
              {h} hours
            </MenuItem>
          ))}
        </TextField>
        {jobs.data ? (
          <Typography variant="body2" color="text.secondary" aria-live="polite">
            {list.length} {list.length === 1 ? "job" : "jobs"} on the map
            {jobs.data.unplaced.length ? `, ${jobs.data.unplaced.length} without a place` : ""}
          </Typography>
        ) : null}
      </Box>

      {jobs.isError ? (
        <Alert
          severity="error"
          action={
            <Button color="inherit" size="small" onClick={() => void jobs.refetch()}>
              Retry
            </Button>
          }
        >
          The jobs could not be loaded.
        </Alert>
      ) : null}
      {tilesFailed ? (
        <Alert severity="warning">
          The map could not load (offline, or the map tiles are blocked). The jobs are listed below.
        </Alert>
      ) : settings.data ? (
        <Box sx={{ height: { xs: "55dvh", md: "62dvh" }, borderRadius: 1, overflow: "hidden", boxShadow: 1 }}>
          <JobMap
            tileUrl={settings.data.tile_url}
            attribution={settings.data.attribution}
            markers={markers}
            // Fits the jobs when they first load, for another window or view, and when a new job comes in.
            fitKey={jobs.data ? `${view}:${windowHours}:${newestId}` : null}
            onOpen={(id) => setOpenJob(String(id))}
            onTilesFailed={() => setTilesFailed(true)}
          />
        </Box>
      ) : (
        <Box sx={{ display: "flex", justifyContent: "center", py: 4 }}>
          <CircularProgress aria-label="Loading the map" />
        </Box>
      )}

      {jobs.isPending ? null : (
        <JobList jobs={list} now={now} newestId={newestId} onOpen={(id) => setOpenJob(String(id))} />
      )}
      {renderJob(openJob, () => setOpenJob(null))}
    </Box>
  );
}

/** The jobs on the map as a list: what a screen reader reads, and all there is when tiles fail. */
function JobList({
  jobs,
  now,
  newestId,
  onOpen,
}: {
  jobs: MapJob[];
  now: number;
  newestId: number | null;
  onOpen: (id: number) => void;
}) {
  if (jobs.length === 0) {
    return (
      <Typography color="text.secondary" sx={{ py: 2 }}>
        No jobs with a place in this window.
      </Typography>
    );
  }
  return (
    <List dense aria-label="Jobs on the map" sx={{ bgcolor: "background.paper", borderRadius: 1 }}>
      {jobs.map((job) => {
        const presentation = typePresentation(job.alert.type);
        return (
          <ListItemButton
            key={job.alert.id}
            onClick={() => onOpen(job.alert.id)}
            selected={job.alert.id === newestId}
            sx={{ borderLeft: `6px solid ${presentation.color}`, mb: 0.5, minHeight: 48 }}
          >
            <ListItemText
              primary={`${presentation.label} · ${relativeTimeLabel(alertTime(job.alert), now)}${
                job.pages > 1 ? ` · ${job.pages} pages` : ""
              }`}
              secondary={`${job.alert.primary_address ?? short(job.alert.message)} · ${PRECISION_LABELS[job.position.precision]}`}
            />
          </ListItemButton>
        );
      })}
    </List>
  );
}
