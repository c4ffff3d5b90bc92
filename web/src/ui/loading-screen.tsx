import Box from "@mui/material/Box";
import CircularProgress from "@mui/material/CircularProgress";
import Typography from "@mui/material/Typography";
import { PRODUCT_NAME } from "@turnout/domain";

/** Full-page "Loading Turnout" state shown while the app starts or a lazy page loads. */
export function LoadingScreen({ label = `Loading ${PRODUCT_NAME}` }: { label?: string }) {
  return (
    <Box
      role="status"
      aria-live="polite"
      sx={{
        minHeight: "100dvh",
        display: "flex",
        flexDirection: "column",
        alignItems: "center",
        justifyContent: "center",
        gap: 2,
      }}
    >
      <CircularProgress aria-hidden="true" />
      <Typography component="p" variant="h6">
        {label}
      </Typography>
    </Box>
  );
}
