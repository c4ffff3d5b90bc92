import { arrowUpwardPath, Icon } from "../../ui/kit/icons";
import { Button } from "../../ui/kit/kit";
import "./feed.css";

/** "3 new alerts", floating under the header while new cards arrived above a reader scrolled down. */
export function NewAlertsButton({ count, onClick }: { count: number; onClick: () => void }) {
  return (
    <Button
      variant="contained"
      color="secondary"
      className="feed-new-alerts"
      startIcon={<Icon path={arrowUpwardPath} />}
      onClick={onClick}
    >
      {count === 1 ? "1 new alert" : `${count} new alerts`}
    </Button>
  );
}
