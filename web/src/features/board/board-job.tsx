import Box from "@mui/material/Box";
import Typography from "@mui/material/Typography";
import { typePresentation } from "@turnout/domain";
import { useMemo } from "react";
import { JobMap, type MapMarker } from "../../ui/job-map";
import { type Board, type BoardJob, clockDigits, etaSecondsLeft, secondsSince } from "./board-api";

// The parts of the station board (board-page.tsx): the current job large with its map and responders,
// the idle clock, and the previous jobs small.

export function CurrentJob({ job, board, now }: { job: BoardJob; board: Board; now: number }) {
  const presentation = typePresentation(job.type);
  const markers = useMemo<MapMarker[]>(
    () =>
      job.position
        ? [
            {
              id: job.id,
              latitude: job.position.latitude,
              longitude: job.position.longitude,
              type: job.type,
              label: job.primary_address ?? job.type_label,
              newest: true,
            },
          ]
        : [],
    [job],
  );
  const station = useMemo(
    () => (board.unit.station ? { ...board.unit.station, name: `${board.unit.name} station` } : null),
    [board.unit],
  );
  return (
    <Box
      component="section"
      aria-label="Current job"
      sx={{ flex: 1, display: "grid", gridTemplateColumns: "3fr 2fr", gap: 3, minHeight: 0 }}
    >
      <Box sx={{ display: "flex", flexDirection: "column", gap: 2, minWidth: 0 }}>
        <Box sx={{ display: "flex", alignItems: "center", gap: 3 }}>
          <Box
            sx={{
              bgcolor: presentation.color,
              color: "#fff",
              px: 3,
              py: 1,
              borderRadius: 2,
              fontSize: 40,
              fontWeight: 800,
            }}
          >
            {presentation.label}
          </Box>
          <Typography
            data-testid="since-page"
            sx={{ fontSize: 96, fontWeight: 800, fontVariantNumeric: "tabular-nums", lineHeight: 1 }}
          >
            {clockDigits(secondsSince(job.started_at, now))}
          </Typography>
          <Typography variant="h6" color="text.secondary">
            since the page
          </Typography>
        </Box>
        <Typography data-testid="current-address" sx={{ fontSize: 56, fontWeight: 700, lineHeight: 1.1 }}>
          {job.primary_address ?? "No address in the page"}
        </Typography>
        <Typography
          data-testid="current-message"
          sx={{ fontSize: 30, lineHeight: 1.3, overflowWrap: "anywhere" }}
        >
          {job.message}
        </Typography>
        <Responders job={job} now={now} />
      </Box>
      <Box sx={{ borderRadius: 2, overflow: "hidden", minHeight: 420 }}>
        <JobMap
          tileUrl={board.map.tile_url}
          attribution={board.map.attribution}
          markers={markers}
          station={station}
          fitKey={String(job.id)}
          interactive={false}
          label="Map of the job and the station"
        />
      </Box>
    </Box>
  );
}

function Responders({ job, now }: { job: BoardJob; now: number }) {
  const total = job.responders.length + job.others_responding;
  return (
    <Box component="section" aria-label="Responding" sx={{ mt: 1 }}>
      <Typography variant="h4" sx={{ mb: 1, fontWeight: 700 }}>
        Responding: {total}
        {job.not_available ? (
          <Typography component="span" variant="h5" color="text.secondary">
            {"  "}· not available: {job.not_available}
          </Typography>
        ) : null}
      </Typography>
      <Box
        component="ul"
        sx={{
          listStyle: "none",
          p: 0,
          m: 0,
          display: "grid",
          gridTemplateColumns: "repeat(auto-fill, minmax(300px, 1fr))",
          gap: 1,
        }}
      >
        {job.responders.map((person) => {
          const left = etaSecondsLeft(person.answered_at, person.eta_minutes, now);
          return (
            <Box
              component="li"
              key={`${person.name}-${person.answered_at}`}
              sx={{
                display: "flex",
                justifyContent: "space-between",
                bgcolor: "background.paper",
                px: 2,
                py: 1,
                borderRadius: 1,
                fontSize: 30,
              }}
            >
              <span>{person.name}</span>
              <Box
                component="span"
                sx={{
                  fontVariantNumeric: "tabular-nums",
                  color: left !== null && left <= 0 ? "success.main" : "inherit",
                }}
              >
                {left === null ? "on the way" : left <= 0 ? "due" : clockDigits(left)}
              </Box>
            </Box>
          );
        })}
        {job.others_responding ? (
          <Box component="li" sx={{ px: 2, py: 1, fontSize: 26, color: "text.secondary" }}>
            +{job.others_responding} from other units
          </Box>
        ) : null}
      </Box>
    </Box>
  );
}

export function IdleClock({ now }: { now: number }) {
  const date = new Date(now);
  return (
    <Box
      component="section"
      aria-label="Idle clock"
      sx={{
        flex: 1,
        display: "flex",
        flexDirection: "column",
        alignItems: "center",
        justifyContent: "center",
      }}
    >
      <Typography
        data-testid="idle-clock"
        sx={{
          fontSize: "clamp(96px, 16vw, 280px)",
          fontWeight: 800,
          fontVariantNumeric: "tabular-nums",
          lineHeight: 1,
        }}
      >
        {date.toLocaleTimeString("en-AU", { hour: "2-digit", minute: "2-digit", hour12: false })}
      </Typography>
      <Typography variant="h3" color="text.secondary">
        {date.toLocaleDateString("en-AU", { weekday: "long", day: "numeric", month: "long" })}
      </Typography>
    </Box>
  );
}

export function PreviousJobs({ jobs, now }: { jobs: BoardJob[]; now: number }) {
  if (jobs.length === 0) return null;
  return (
    <Box
      component="section"
      aria-label="Previous jobs"
      sx={{ display: "grid", gridTemplateColumns: "repeat(auto-fill, minmax(360px, 1fr))", gap: 1.5 }}
    >
      {jobs.slice(0, 4).map((job) => (
        <Box
          key={job.id}
          sx={{
            bgcolor: "background.paper",
            borderLeft: `8px solid ${typePresentation(job.type).color}`,
            borderRadius: 1,
            p: 1.5,
          }}
        >
          <Typography variant="h6" noWrap>
            {job.type_label} · {clockDigits(secondsSince(job.sent_at, now))} ago
          </Typography>
          <Typography noWrap color="text.secondary">
            {job.primary_address ?? job.message}
          </Typography>
        </Box>
      ))}
    </Box>
  );
}
