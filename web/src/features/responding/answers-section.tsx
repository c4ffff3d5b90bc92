import Alert from "@mui/material/Alert";
import Box from "@mui/material/Box";
import Typography from "@mui/material/Typography";
import type { UseQueryResult } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { isApiError } from "../../api/errors";
import { JobViewSection } from "../../ui/job-view-section";
import { ResponseCounts } from "./card-responses";

/**
 * A job view's answers under a heading: the live counts, then what `children` makes of the job.
 * A refusal (the job is not the caller's) shows nothing; any other failure says so.
 */
export function AnswersSection<T extends { responding: number; not_available: number }>({
  title,
  query,
  failureText,
  children,
}: {
  title: string;
  query: UseQueryResult<T>;
  failureText: string;
  children: (job: T) => ReactNode;
}) {
  if (query.isError) {
    if (isApiError(query.error) && query.error.status >= 400 && query.error.status < 500) return null;
    return (
      <Alert severity="warning" sx={{ mt: 2 }}>
        {failureText}
      </Alert>
    );
  }
  const job = query.data;
  if (!job) return null;
  return (
    <JobViewSection title={title}>
      <Box aria-live="polite">
        <ResponseCounts counts={job} />
      </Box>
      {children(job)}
    </JobViewSection>
  );
}

/** A job view's answers heading with why the job takes none (machine page, administrative, no job number). */
export function NotAnswerable({ title, reason }: { title: string; reason: string }) {
  return (
    <JobViewSection title={title}>
      <Typography variant="body2" sx={{ color: "text.secondary" }}>
        {reason}
      </Typography>
    </JobViewSection>
  );
}
