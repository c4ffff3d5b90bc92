import Alert from "@mui/material/Alert";
import CircularProgress from "@mui/material/CircularProgress";
import Table from "@mui/material/Table";
import TableBody from "@mui/material/TableBody";
import TableCell from "@mui/material/TableCell";
import TableContainer from "@mui/material/TableContainer";
import TableHead from "@mui/material/TableHead";
import TableRow from "@mui/material/TableRow";
import Typography from "@mui/material/Typography";
import { type UseQueryResult, useQuery } from "@tanstack/react-query";
import { securityQueries } from "./queries";
import { formatTime, Section } from "./section";
import type { SecurityEvent } from "./security-api";

function detailsText(details: unknown): string {
  if (details === null || details === undefined) return "";
  return typeof details === "string" ? details : JSON.stringify(details);
}

/** The latest sign-in and activation code checks (phones masked by the server). */
export function OtpAttemptsSection() {
  const attempts = useQuery(securityQueries.otpAttempts());
  return (
    <Section id="security-attempts-heading" title="OTP attempts">
      {attempts.isPending && <CircularProgress aria-label="Loading OTP attempts" />}
      {attempts.isError && <Alert severity="error">{attempts.error.message}</Alert>}
      {attempts.data?.length === 0 && <Typography>No attempts recorded.</Typography>}
      {attempts.data && attempts.data.length > 0 && (
        <TableContainer sx={{ maxHeight: 400 }}>
          <Table size="small" stickyHeader aria-label="OTP attempts">
            <TableHead>
              <TableRow>
                <TableCell>Time</TableCell>
                <TableCell>Phone</TableCell>
                <TableCell>Address</TableCell>
                <TableCell>Kind</TableCell>
                <TableCell>Result</TableCell>
              </TableRow>
            </TableHead>
            <TableBody>
              {attempts.data.map((attempt) => (
                <TableRow key={attempt.id}>
                  <TableCell>{formatTime(attempt.created_at)}</TableCell>
                  <TableCell>{attempt.phone}</TableCell>
                  <TableCell>{attempt.ip_address ?? ""}</TableCell>
                  <TableCell>{attempt.kind}</TableCell>
                  <TableCell>
                    {attempt.success ? "Succeeded" : `Failed${attempt.reason ? `: ${attempt.reason}` : ""}`}
                  </TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
        </TableContainer>
      )}
    </Section>
  );
}

function EventsTable({ label, events }: { label: string; events: SecurityEvent[] }) {
  return (
    <TableContainer sx={{ maxHeight: 400 }}>
      <Table size="small" stickyHeader aria-label={label}>
        <TableHead>
          <TableRow>
            <TableCell>Time</TableCell>
            <TableCell>Event</TableCell>
            <TableCell>Severity</TableCell>
            <TableCell>User</TableCell>
            <TableCell>Address</TableCell>
            <TableCell>Details</TableCell>
          </TableRow>
        </TableHead>
        <TableBody>
          {events.map((event) => (
            <TableRow key={event.id}>
              <TableCell>{formatTime(event.created_at)}</TableCell>
              <TableCell>{event.event_type}</TableCell>
              <TableCell>{event.severity ?? ""}</TableCell>
              <TableCell>{event.user_id ?? ""}</TableCell>
              <TableCell>{event.ip_address ?? ""}</TableCell>
              <TableCell sx={{ overflowWrap: "anywhere", maxWidth: 320 }}>
                {detailsText(event.details)}
              </TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
    </TableContainer>
  );
}

function EventsSection({
  id,
  title,
  events,
}: {
  id: string;
  title: string;
  events: UseQueryResult<SecurityEvent[]>;
}) {
  return (
    <Section id={id} title={title}>
      {events.isPending && <CircularProgress aria-label={`Loading ${title.toLowerCase()}`} />}
      {events.isError && <Alert severity="error">{events.error.message}</Alert>}
      {events.data?.length === 0 && <Typography>Nothing recorded.</Typography>}
      {events.data && events.data.length > 0 && <EventsTable label={title} events={events.data} />}
    </Section>
  );
}

/** Every security event, newest first. */
export function SecurityEventsSection() {
  const events = useQuery(securityQueries.events());
  return <EventsSection id="security-events-heading" title="Security events" events={events} />;
}

/** What admins did (the events an admin action recorded), newest first. */
export function AdminActionsSection() {
  const events = useQuery(securityQueries.actions());
  return <EventsSection id="security-actions-heading" title="Admin actions" events={events} />;
}
