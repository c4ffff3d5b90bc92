import FilterListIcon from "@mui/icons-material/FilterList";
import SearchIcon from "@mui/icons-material/Search";
import Badge from "@mui/material/Badge";
import IconButton from "@mui/material/IconButton";

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
        <Badge color="secondary" variant="dot" invisible={!searchActive}>
          <SearchIcon />
        </Badge>
      </IconButton>
      <IconButton
        color="inherit"
        title="Alert filter settings"
        aria-label="Alert filter settings"
        onClick={onOpenSettings}
      >
        <FilterListIcon />
      </IconButton>
    </>
  );
}
