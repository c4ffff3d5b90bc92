import Alert from "@mui/material/Alert";
import Button from "@mui/material/Button";
import CircularProgress from "@mui/material/CircularProgress";
import Typography from "@mui/material/Typography";
import type { ReactNode } from "react";

/** The part of a TanStack query result the admin views read. */
export interface QueryLike<T> {
  data: T | undefined;
  isPending: boolean;
  isError: boolean;
  error: Error | null;
  refetch: () => unknown;
}

export interface QueryStateProps<T> {
  query: QueryLike<T>;
  /** The spinner's accessible name while the first answer is awaited ("Loading users"). */
  loadingLabel: string;
  /** Said when the answer holds nothing (by default an empty array): a text, or any content. */
  emptyText?: ReactNode;
  isEmpty?: (data: T) => boolean;
  /** The words of a failure; the error's own message by default. */
  errorText?: (error: Error) => string;
  /** A smaller spinner inside dialogs and cards. */
  spinnerSize?: number;
  children: (data: T) => ReactNode;
}

function EmptyText({ text }: { text: ReactNode }) {
  if (typeof text !== "string") return text;
  return (
    <Typography color="text.secondary" sx={{ py: 1 }}>
      {text}
    </Typography>
  );
}

const emptyArray = (data: unknown) => Array.isArray(data) && data.length === 0;

/**
 * What every admin view shows of a query: a spinner until the first answer, the failure with a
 * Retry that asks again, the empty text when there is nothing, else the content. Data from an
 * earlier answer stays on screen below a failed refresh.
 */
export function QueryState<T>({
  query,
  loadingLabel,
  emptyText,
  isEmpty = emptyArray,
  errorText = (error) => error.message,
  spinnerSize,
  children,
}: QueryStateProps<T>) {
  const { data } = query;
  return (
    <>
      {query.isPending && <CircularProgress size={spinnerSize} aria-label={loadingLabel} />}
      {query.isError && query.error && (
        <Alert
          severity="error"
          sx={{ mb: data === undefined ? 0 : 1 }}
          action={
            <Button color="inherit" size="small" onClick={() => void query.refetch()}>
              Retry
            </Button>
          }
        >
          {errorText(query.error)}
        </Alert>
      )}
      {data !== undefined && (isEmpty(data) ? <EmptyText text={emptyText} /> : children(data))}
    </>
  );
}
