import Box from "@mui/material/Box";
import CircularProgress from "@mui/material/CircularProgress";
import Typography from "@mui/material/Typography";
import { PRODUCT_NAME } from "@turnout/domain";

/** A page-high column with its content centred both ways (loading, failure and board screens). */
export const centredPageSx = {
  minHeight: "100dvh",
  display: "flex",
  flexDirection: "column",
  alignItems: "center",
  justifyContent: "center",
  gap: 2,
} as const;

/** Full-page "Loading Turnout" state shown while the app starts or a lazy page loads. */
export function LoadingScreen({ label = `Loading ${PRODUCT_NAME}` }: { label?: string }) {
  return (
    <Box role="status" aria-live="polite" sx={centredPageSx}>
      <CircularProgress aria-hidden="true" />
      <Typography component="p" variant="h6">
        {label}
      </Typography>
    </Box>
  );
}
