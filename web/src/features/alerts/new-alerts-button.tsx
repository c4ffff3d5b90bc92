import ArrowUpwardIcon from "@mui/icons-material/ArrowUpward";
import Button from "@mui/material/Button";

/** "3 new alerts", floating under the header while new cards arrived above a reader scrolled down. */
export function NewAlertsButton({ count, onClick }: { count: number; onClick: () => void }) {
  return (
    <Button
      variant="contained"
      color="secondary"
      startIcon={<ArrowUpwardIcon aria-hidden="true" />}
      onClick={onClick}
      sx={{
        position: "fixed",
        top: 72,
        left: "50%",
        transform: "translateX(-50%)",
        zIndex: (theme) => theme.zIndex.appBar + 1,
        borderRadius: 6,
        boxShadow: 6,
      }}
    >
      {count === 1 ? "1 new alert" : `${count} new alerts`}
    </Button>
  );
}
