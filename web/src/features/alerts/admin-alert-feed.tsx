import RefreshIcon from "@mui/icons-material/Refresh";
import SearchIcon from "@mui/icons-material/Search";
import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import Typography from "@mui/material/Typography";
import { type ReactNode, useCallback, useEffect, useMemo, useState } from "react";
import type { Alert as AlertItem } from "../../api/alerts";
import { subscribeLiveEvents } from "../../api/live-events";
import { useNow } from "../../ui/use-now";
import type { AlertCardHandlers, CardPanel } from "./alert-card";
import { AlertList } from "./alert-list";
import { type AlertGroup, type FeedFilters, NO_FILTERS } from "./alerts-api";
import type { FeedItem } from "./feed-items";
import { FeedLoadError, FeedLoading, NoAlertsNotice } from "./feed-notices";
import { FilterChipsBar } from "./filter-chips-bar";
import { GroupedAlertDialog } from "./grouped-alert-dialog";
import { JobDetailDialog } from "./job-detail-dialog";
import { SearchDialog } from "./search-dialog";
import { useAlertFeed } from "./use-alert-feed";

/** Relative times on the cards move on once a minute. */
const CLOCK_TICK_MS = 60_000;
/** The admin feed's cache key: one per browser, whoever is signed in (admin context ignores personal filters). */
const ADMIN_FEED_KEY = "admin";

/**
 * What the admin console adds to its feed (composed in web/src/app): the answers toggle beside each
 * card, the job view's extra sections, and the dialog that gives an unmapped capcode an agency.
 */
export interface AdminFeedSlots {
  cardAside: (item: FeedItem, panel: CardPanel) => ReactNode;
  jobExtra: (alert: AlertItem) => ReactNode;
  capcodeDialog: (target: { capcode: string } | null, onClose: () => void) => ReactNode;
}

/**
 * The alert feed of the admin console's Alerts tab (SPEC 2): in admin context (every agency,
 * UNMAPPED included) with each card's capcode, the search modal and the card filters, and the
 * capcode assignment dialog (a slot) on cards whose capcode no agency has yet.
 */
export function AdminAlertFeed({ slots }: { slots: AdminFeedSlots }) {
  const now = useNow(CLOCK_TICK_MS);
  const [filters, setFilters] = useState<FeedFilters>(NO_FILTERS);
  const [searchOpen, setSearchOpen] = useState(false);
  const [openGroup, setOpenGroup] = useState<AlertGroup | null>(null);
  const [jobId, setJobId] = useState<string | null>(null);
  const [assignTarget, setAssignTarget] = useState<{ capcode: string } | null>(null);
  const feed = useAlertFeed(ADMIN_FEED_KEY, filters, { adminContext: true });
  const { query } = feed;
  // The console keeps the page's one live channel in the admin room, so every agency's new alerts
  // arrive there; the feed admits those its filters show. It reads its first page again once the
  // server has put the page in that room (a page sent before reached the room without it: on
  // entering the console, and after a reconnect) and once a burst the server folded into
  // `alerts:refresh` has settled (only its newest alert came live).
  const { receiveLiveAlert, catchUp } = feed;
  useEffect(
    () =>
      subscribeLiveEvents(["new-alert", "joined-admin", "burst-settled"], (event, payload) => {
        if (event === "new-alert") receiveLiveAlert(payload as AlertItem);
        else void catchUp(event === "joined-admin" ? "join" : "burst");
      }),
    [receiveLiveAlert, catchUp],
  );

  const handlers = useMemo<AlertCardHandlers>(
    () => ({
      onOpen: (item) => {
        if (item.group.is_grouped && item.group.messages.length > 1) setOpenGroup(item.group);
        else setJobId(String(item.group.primary_message.id));
      },
      onFilterType: (type) => setFilters((current) => ({ ...current, type })),
      onFilterAgency: (agency) => setFilters((current) => ({ ...current, agency })),
      onFilterArea: (area) => setFilters((current) => ({ ...current, area })),
      onAssignCapcode: (alert) => {
        if (alert.capcode) setAssignTarget({ capcode: alert.capcode });
      },
      renderAside: slots.cardAside,
    }),
    [slots],
  );
  const closeAssign = useCallback(() => setAssignTarget(null), []);

  const handleSearch = (search: string) => {
    setFilters((current) => ({ ...current, search }));
    setSearchOpen(false);
  };
  const handleRemoveFilter = (name: keyof FeedFilters) =>
    setFilters((current) => ({ ...current, [name]: name === "search" ? "" : null }));

  const loadError = query.isError && !query.data ? query.error : null;
  let content: ReactNode;
  if (loadError) {
    content = <FeedLoadError error={loadError} onRetry={() => void query.refetch()} />;
  } else if (!query.data) {
    content = <FeedLoading />;
  } else if (feed.items.length === 0) {
    content = <NoAlertsNotice />;
  } else {
    content = (
      <AlertList
        items={feed.items}
        now={now}
        highlighted={feed.highlighted}
        handlers={handlers}
        showCapcode
        more={{
          hasNextPage: query.hasNextPage,
          isFetchingNextPage: query.isFetchingNextPage,
          failed: query.isFetchNextPageError,
          fetchNextPage: () => void query.fetchNextPage(),
        }}
      />
    );
  }

  return (
    <Box sx={{ maxWidth: 960, mx: "auto" }}>
      <Box sx={{ display: "flex", flexWrap: "wrap", alignItems: "center", gap: 1, mb: 1 }}>
        <Typography component="h2" variant="h6" sx={{ flexGrow: 1 }}>
          All agencies' alerts
        </Typography>
        <Button
          variant="outlined"
          startIcon={<SearchIcon aria-hidden="true" />}
          onClick={() => setSearchOpen(true)}
        >
          Search messages
        </Button>
        <Button
          startIcon={<RefreshIcon aria-hidden="true" />}
          onClick={() => {
            feed.resetLive();
            void query.refetch();
          }}
          disabled={query.isFetching}
        >
          Refresh
        </Button>
      </Box>
      <FilterChipsBar
        filters={filters}
        onRemove={handleRemoveFilter}
        onClearAll={() => setFilters(NO_FILTERS)}
      />
      {content}
      <SearchDialog
        open={searchOpen}
        initialSearch={filters.search}
        onClose={() => setSearchOpen(false)}
        onSearch={handleSearch}
      />
      <GroupedAlertDialog
        group={openGroup}
        onClose={() => setOpenGroup(null)}
        onOpenMessage={(alertId) => {
          setOpenGroup(null);
          setJobId(String(alertId));
        }}
      />
      <JobDetailDialog jobId={jobId} onClose={() => setJobId(null)} renderExtra={slots.jobExtra} />
      {slots.capcodeDialog(assignTarget, closeAssign)}
    </Box>
  );
}
