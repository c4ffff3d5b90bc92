import Box from "@mui/material/Box";
import { MESSAGES } from "@turnout/domain";

/** The development-host banner of SPEC 2: black on amber, readable in both themes. */
export function DevBanner({ show }: { show: boolean }) {
  if (!show) return null;
  return (
    <Box
      role="note"
      sx={{
        bgcolor: "#ffd54f",
        color: "#000",
        textAlign: "center",
        fontWeight: 700,
        fontSize: "0.875rem",
        px: 1,
        py: 0.5,
      }}
    >
      {MESSAGES.DEV_BANNER}
    </Box>
  );
}
