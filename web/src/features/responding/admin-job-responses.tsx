import Typography from "@mui/material/Typography";
import { useQuery } from "@tanstack/react-query";
import { type AnswerablePage, formatDateTime, jobAnswerability } from "@turnout/domain";
import { AnswersSection, NotAnswerable } from "./answers-section";
import { PeopleList } from "./job-responses";
import { CLOSED_TEXT } from "./labels";
import { adminJobResponsesQueryOptions } from "./queries";

/**
 * The admin's view of a job's answers (the console's Alerts tab): counts, whether answers are still
 * taken, and every member's answer with their agencies, kept current by the live channel.
 * A job that takes no answers (domain jobAnswerability over its pages) says why, without a request.
 */
export function AdminJobResponses({ alertId, pages }: { alertId: number; pages: readonly AnswerablePage[] }) {
  const answerability = jobAnswerability(pages);
  const query = useQuery({ ...adminJobResponsesQueryOptions(alertId), enabled: answerability.answerable });
  if (!answerability.answerable) return <NotAnswerable title="Answers" reason={answerability.reason} />;
  return (
    <AnswersSection title="Answers" query={query} failureText="Could not load the answers to this job.">
      {(job) => (
        <>
          <Typography variant="body2" sx={{ mt: 0.5, color: "text.secondary" }}>
            {job.open ? `Taking answers until ${formatDateTime(job.closes_at)}` : CLOSED_TEXT}
          </Typography>
          <PeopleList people={job.people} label="Everyone's answers" />
        </>
      )}
    </AnswersSection>
  );
}
