import { filterListPath, Icon, searchPath } from "../../ui/kit/icons";
import { IconButton } from "../../ui/kit/kit";
import "./feed.css";

/** The feed's buttons in the page header: search (dotted while a search is on) and filter settings. */
export function FeedHeaderActions({
  searchActive,
  onOpenSearch,
  onOpenSettings,
}: {
  searchActive: boolean;
  onOpenSearch: () => void;
  onOpenSettings: () => void;
}) {
  return (
    <>
      <IconButton color="inherit" title="Search messages" aria-label="Search messages" onClick={onOpenSearch}>
        <span className="feed-search-icon">
          <Icon path={searchPath} />
          {searchActive ? <span className="feed-search-icon__dot" /> : null}
        </span>
      </IconButton>
      <IconButton
        color="inherit"
        title="Alert filter settings"
        aria-label="Alert filter settings"
        onClick={onOpenSettings}
      >
        <Icon path={filterListPath} />
      </IconButton>
    </>
  );
}
