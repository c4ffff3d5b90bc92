import Alert from "@mui/material/Alert";
import Button from "@mui/material/Button";
import { errorText } from "./error-text";

/** A list that could not be loaded: the server's reason, and a Retry button that asks again. */
export function LoadError({ error, onRetry }: { error: unknown; onRetry: () => void }) {
  return (
    <Alert
      severity="error"
      action={
        <Button color="inherit" onClick={onRetry}>
          Retry
        </Button>
      }
    >
      {errorText(error)}
    </Alert>
  );
}
