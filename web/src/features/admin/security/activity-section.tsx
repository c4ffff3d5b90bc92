import { type UseQueryResult, useQuery } from "@tanstack/react-query";
import { AdminList } from "../data-view/admin-list";
import type { Column } from "../data-view/data-table";
import { Section } from "../data-view/section";
import { formatTime } from "./format-time";
import { securityQueries } from "./queries";
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
      <AdminList
        query={attempts}
        loadingLabel="Loading OTP attempts"
        emptyText="No attempts recorded."
        label="OTP attempts"
        maxHeight={400}
        rowKey={(attempt) => attempt.id}
        columns={[
          { header: "Time", cell: (attempt) => formatTime(attempt.created_at) },
          { header: "Phone", cell: (attempt) => attempt.phone },
          { header: "Address", cell: (attempt) => attempt.ip_address ?? "" },
          { header: "Kind", cell: (attempt) => attempt.kind },
          {
            header: "Result",
            cell: (attempt) =>
              attempt.success ? "Succeeded" : `Failed${attempt.reason ? `: ${attempt.reason}` : ""}`,
          },
        ]}
      />
    </Section>
  );
}

const EVENT_COLUMNS: Column<SecurityEvent>[] = [
  { header: "Time", cell: (event) => formatTime(event.created_at) },
  { header: "Event", cell: (event) => event.event_type },
  { header: "Severity", cell: (event) => event.severity ?? "" },
  { header: "User", cell: (event) => event.user_id ?? "" },
  { header: "Address", cell: (event) => event.ip_address ?? "" },
  {
    header: "Details",
    cell: (event) => detailsText(event.details),
    sx: { overflowWrap: "anywhere", maxWidth: 320 },
  },
];

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
      <AdminList
        query={events}
        loadingLabel={`Loading ${title.toLowerCase()}`}
        emptyText="Nothing recorded."
        label={title}
        maxHeight={400}
        rowKey={(event) => event.id}
        columns={EVENT_COLUMNS}
      />
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
