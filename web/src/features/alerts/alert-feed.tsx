import { useQuery, useQueryClient } from "@tanstack/react-query";
import {
  type AlertType,
  type FeedView,
  FILTERS_SAVED_POPUP_MS,
  formatDateTime,
  hidesEveryAgency,
  unitViewScope,
} from "@turnout/domain";
import { type ReactNode, useCallback, useDeferredValue, useEffect, useMemo, useRef, useState } from "react";
import type { Alert as AlertData } from "../../api/alerts";
import { isApiError } from "../../api/errors";
import type { LiveConnectionState } from "../../api/live-socket";
import type { SessionUser } from "../../api/types";
import { markFirstContentShown } from "../../ui/first-content";
import { Notice } from "../../ui/kit/kit";
import { LazyMount } from "../../ui/lazy-mount";
import { lazyWithTheme } from "../../ui/lazy-with-theme";
import { useNow } from "../../ui/use-now";
import { useOnlineStatus } from "../../ui/use-online-status";
import type { AlertCardHandlers, CardPanel } from "./alert-card";
import { AlertList } from "./alert-list";
import { type AlertGroup, type FeedFilters, type MemberView, NO_FILTERS } from "./alerts-api";
import { FeedHeaderActions } from "./feed-header-actions";
import type { FeedItem } from "./feed-items";
import {
  FeedLoadError,
  FeedLoading,
  LiveStatusNotice,
  NoAgencyNotice,
  NoAlertsNotice,
  OfflineNotice,
} from "./feed-notices";
import { FeedViewChips } from "./feed-view-chips";
import { FilterChipsBar } from "./filter-chips-bar";
import { NewAlertsButton } from "./new-alerts-button";
import { alertKeys, filterSettingsQueryOptions, memberViewQueryOptions } from "./queries";
import { useAlertFeed } from "./use-alert-feed";
import { useJobParam } from "./use-job-param";
import { type JoinedView, joinedViewOf, useLiveChannel } from "./use-live-channel";
import { useUnseenArrivals } from "./use-unseen-arrivals";
import "./feed.css";

// The dialogs (built with MUI) load with MUI's theme when first opened (issue 31: the feed's first paint
// needs none of them); the job popup at once when the page opens with ?job=.
const SearchDialog = lazyWithTheme(() => import("./search-dialog").then((module) => module.SearchDialog));
const FilterSettingsDialog = lazyWithTheme(() =>
  import("./filter-settings-dialog").then((module) => module.FilterSettingsDialog),
);
const GroupedAlertDialog = lazyWithTheme(() =>
  import("./grouped-alert-dialog").then((module) => module.GroupedAlertDialog),
);
const JobDetailDialog = lazyWithTheme(() =>
  import("./job-detail-dialog").then((module) => module.JobDetailDialog),
);
// The feed's two notices (a saved filter, a server error) are rare: MUI's Snackbar loads with the first.
const Snackbar = lazyWithTheme(() => import("@mui/material/Snackbar").then((module) => module.default));

/** Relative times on the cards move on once a minute. */
const CLOCK_TICK_MS = 60_000;

/** The page's heading for screen readers, one element for every render (React skips it). */
const HEADING = <h1 className="kit-visually-hidden">Alerts</h1>;

/** What other features add to the feed's cards and its job popup (composed by the dashboard). */
export interface FeedSlots {
  /** Beside the card's time (e.g. who is responding, as a toggle of the card's panel). */
  cardAside?: (item: FeedItem, panel: CardPanel) => ReactNode;
  /** At the foot of the card (e.g. the answer row, while the card's panel is open). */
  cardFooter?: (item: FeedItem, panel: CardPanel) => ReactNode;
  jobExtra?: (alert: AlertData) => ReactNode;
}

/** What the feed hands the page header: its buttons, the live state and a sign-out that closes the channel first. */
export interface FeedHeaderControls {
  actions: ReactNode;
  connection: LiveConnectionState;
  signOut: () => Promise<void>;
}

/**
 * The alerts view of the dashboard (SPEC 2): the live feed with its filter chips, search and filter
 * settings, the grouped-alert dialog and the job popup of `?job={id}`. The page header is the
 * caller's (`renderHeader`), fed with this view's buttons and live connection state.
 * `view` (the admin console) is shown instead of the feed under the same header: the feed and its
 * live channel stay, so going back shows the alerts that arrived meanwhile without a new connection;
 * `joinAdmin` puts that channel in the admin room. `slots` adds other features' parts to the cards
 * and the job popup.
 */
export function AlertFeed({
  user,
  onSignOut,
  renderHeader,
  view,
  joinAdmin = false,
  slots = {},
  onAlertsAdmitted,
}: {
  user: SessionUser;
  onSignOut: () => Promise<void>;
  renderHeader: (controls: FeedHeaderControls) => ReactNode;
  view?: ReactNode;
  joinAdmin?: boolean;
  slots?: FeedSlots;
  /**
   * The pages the feed just admitted (live, or caught up after a reconnect or a burst), with the
   * agencies its live channel joined (null until known): the alarm's input.
   */
  onAlertsAdmitted?: (alerts: AlertData[], viewAgencyIds: readonly string[] | null) => void;
}) {
  const queryClient = useQueryClient();
  const online = useOnlineStatus();
  const now = useNow(CLOCK_TICK_MS);
  const [filters, setFilters] = useState<FeedFilters>(NO_FILTERS);
  const [searchOpen, setSearchOpen] = useState(false);
  const [settingsOpen, setSettingsOpen] = useState(false);
  const [savedNotice, setSavedNotice] = useState(false);
  const [openGroup, setOpenGroup] = useState<AlertGroup | null>(null);

  // The member's units and agencies (issue 26): the view chips, and which live alerts the view admits
  // (their units' and whole agencies' in the unit view, their agencies' in the agencies view: never
  // another agency's alert that reached the page through the admin room).
  const memberView = useQuery(memberViewQueryOptions());
  /** Whether the list of cards has been on screen (a latch: see the loading state below). */
  const listShown = useRef(false);
  // What the live channel last said the member reads (its join notice, sent again whenever an admin
  // changes their agencies or units): it decides as soon as it arrives; the query serves until then.
  const [joined, setJoined] = useState<JoinedView | null>(null);
  const unitView = useMemo(() => {
    const source =
      joined ??
      (memberView.data && {
        agencyIds: memberView.data.agencies.map((a) => a.id),
        units: memberView.data.units,
      });
    return source ? unitViewScope(source.agencyIds, filters.view === "units" ? source.units : []) : null;
  }, [joined, memberView.data, filters.view]);
  // The live channel is made after the feed it feeds: its joined agencies reach the callback by ref.
  const joinedAgencies = useRef<readonly string[] | null>(null);
  const admitted = useRef(onAlertsAdmitted);
  admitted.current = onAlertsAdmitted;
  const handleAdmitted = useCallback(
    (alerts: AlertData[]) => admitted.current?.(alerts, joinedAgencies.current),
    [],
  );
  const feed = useAlertFeed(user.id, filters, { unitView, onAdmitted: handleAdmitted });
  const live = useLiveChannel(
    user,
    {
      onAlert: feed.receiveLiveAlert,
      onRoomsJoined: ({ recovered }) => void feed.catchUp(recovered ? "reconnect" : "join"),
      onRefresh: () => void feed.catchUp("burst"),
      // An admin changed the member's agencies or units: the feed is read again from the top, so an
      // agency taken away leaves the screen and one given shows its recent pages.
      onAccessChanged: () => {
        feed.resetLive();
        void feed.query.refetch();
      },
      // An admin changed the member's units or agencies: the chips and the live check read them again.
      onJoined: (payload) => {
        const view = joinedViewOf(payload);
        if (!view) return;
        setJoined(view);
        // The chips' names come from the query: read it again when the units or agencies changed.
        const known = queryClient.getQueryData<MemberView>(alertKeys.memberView());
        const ids = (list: readonly { id: number }[]) => list.map((x) => x.id).join();
        const knownAgencies = known?.agencies.map((a) => a.id) ?? [];
        if (
          known &&
          (ids(view.units) !== ids(known.units) || view.agencyIds.some((id) => !knownAgencies.includes(id)))
        )
          void queryClient.invalidateQueries({ queryKey: alertKeys.memberView() });
      },
    },
    { joinAdmin, view: filters.view },
  );
  joinedAgencies.current = live.joinedAgencyIds;
  const { query } = feed;

  // The server joins no agency both for a user nobody assigned and for one whose filters hide every
  // agency; only the saved filters tell the two apart, so they are read when that happens.
  const settingsCheck = useQuery({ ...filterSettingsQueryOptions(), enabled: live.warning !== null });
  const filtersHideAll =
    settingsCheck.data !== undefined &&
    hidesEveryAgency(
      settingsCheck.data.agencies.map((agency) => agency.filter_value),
      settingsCheck.data.filters,
    );

  // A reader further down the list does not see a card arrive on top: offer a way up to it.
  const { unseenArrivals, handleShowNewest } = useUnseenArrivals(feed.arrivals);

  // Back online with the live channel still up (it never noticed the network go): catch up on what
  // arrived meanwhile. A channel that dropped reads the same page once it has joined its rooms again.
  const wasOnline = useRef(online);
  const liveState = useRef(live.state);
  liveState.current = live.state;
  useEffect(() => {
    if (online && !wasOnline.current && liveState.current === "connected") void feed.catchUp();
    wasOnline.current = online;
  }, [online, feed.catchUp]);

  useEffect(() => {
    if (!savedNotice) return;
    const timer = window.setTimeout(() => setSavedNotice(false), FILTERS_SAVED_POPUP_MS);
    return () => window.clearTimeout(timer);
  }, [savedNotice]);

  const { jobId, openJob, closeJob } = useJobParam();

  const { cardAside, cardFooter, jobExtra } = slots;
  const handlers = useMemo<AlertCardHandlers>(
    () => ({
      onOpen: (item: FeedItem) => {
        if (item.group.is_grouped && item.group.messages.length > 1) setOpenGroup(item.group);
        else openJob(item.group.primary_message.id);
      },
      onFilterType: (type: AlertType) => setFilters((current) => ({ ...current, type })),
      onFilterAgency: (agency) => setFilters((current) => ({ ...current, agency })),
      onFilterArea: (area) => setFilters((current) => ({ ...current, area })),
      renderAside: cardAside,
      renderFooter: cardFooter,
    }),
    [openJob, cardAside, cardFooter],
  );

  const handleSearch = (search: string, showMachine?: boolean) => {
    setFilters((current) => ({ ...current, search, showMachine: showMachine ?? current.showMachine }));
    setSearchOpen(false);
  };

  const handleRemoveFilter = (name: Exclude<keyof FeedFilters, "view">) =>
    setFilters((current) => ({
      ...current,
      [name]: name === "search" ? "" : name === "showMachine" ? false : null,
    }));
  const handleViewChange = (view: FeedView) => setFilters((current) => ({ ...current, view }));

  const handleFiltersSaved = () => {
    setSettingsOpen(false);
    setSavedNotice(true);
    feed.resetLive();
    void queryClient.resetQueries({ queryKey: alertKeys.feeds() });
    void queryClient.invalidateQueries({ queryKey: alertKeys.filterSettings() });
    live.rejoin();
  };

  const { stop } = live;
  const signOut = useCallback(async () => {
    // Our own logout ends this session on the server; the channel must not report that as a lost session.
    stop();
    await onSignOut();
  }, [stop, onSignOut]);

  const searchActive = filters.search.trim() !== "";
  // The same element while the search stays on or off: the header's buttons skip the feed's renders.
  const actions = useMemo(
    () => (
      <FeedHeaderActions
        searchActive={searchActive}
        onOpenSearch={() => setSearchOpen(true)}
        onOpenSettings={() => setSettingsOpen(true)}
      />
    ),
    [searchActive],
  );

  const loadError = query.isError && !query.data ? query.error : null;
  const networkDown = !online || (isApiError(loadError) && loadError.status === 0);
  const showCached = !query.data && networkDown && feed.cached !== null && feed.cached.items.length > 0;
  const items = showCached && feed.cached ? feed.cached.items : feed.items;
  // What the list shows renders in a pass React can interrupt (a deferred value renders as a transition
  // does), its first page included, never holding a slow phone's main thread in one long task; the
  // screen keeps what it showed (at first the spinner) until that pass is done. Rendered at once, the
  // first page was a long task of ~0.6 s at 4x CPU; rendered interruptibly it came 0.6-1 s later while
  // the live channel and the cards' counts started beside it, and they now wait for the first cards
  // (ui/first-content.ts): interruptible, it comes as soon (issue 31).
  const listItems = useDeferredValue(items);
  const loadedAt = query.data ? feed.lastFreshAt : showCached ? (feed.cached?.savedAt ?? null) : null;

  let content: ReactNode;
  /** Whether the page shows what it opened for: cards, a notice instead of them, or another view. */
  let settled = true;
  if (loadError && !showCached) {
    content = <FeedLoadError error={loadError} onRetry={() => void query.refetch()} />;
  } else if (
    (!query.data && !showCached) ||
    (!listShown.current && memberView.fetchStatus === "fetching" && memberView.isPending)
  ) {
    // The first cards wait while the member's view is on its way: its chips above the list would push
    // them down. Once shown, the list never makes way for the loading state again.
    content = online ? <FeedLoading /> : null;
    settled = !online || view !== undefined;
  } else if (items.length === 0) {
    content = <NoAlertsNotice />;
  } else if (listItems.length === 0) {
    // The first cards are being rendered: the spinner stays until they are ready.
    content = <FeedLoading />;
    settled = false;
  } else {
    listShown.current = true;
    content = (
      <AlertList
        items={listItems}
        now={now}
        highlighted={feed.highlighted}
        handlers={handlers}
        more={{
          hasNextPage: !showCached && online && query.hasNextPage,
          isFetchingNextPage: query.isFetchingNextPage,
          failed: query.isFetchNextPageError,
          fetchNextPage: () => void query.fetchNextPage(),
        }}
      />
    );
  }

  // What waits for the first content (the live channel, the cards' answer counts...) starts after it.
  useEffect(() => {
    if (settled) markFirstContentShown();
  }, [settled]);

  // The notices are mounted from their first showing: closed, MUI's Snackbar still renders its hooks.
  const serverErrorNotice = (
    <LazyMount when={live.serverError !== null}>
      <Snackbar
        open={live.serverError !== null}
        autoHideDuration={6_000}
        onClose={live.dismissServerError}
        anchorOrigin={{ vertical: "bottom", horizontal: "center" }}
        message={live.serverError ?? ""}
      />
    </LazyMount>
  );

  if (view) {
    return (
      <div className="feed-page">
        {renderHeader({ actions: null, connection: live.state, signOut })}
        {view}
        {serverErrorNotice}
      </div>
    );
  }

  return (
    <div className="feed-page">
      {renderHeader({ actions, connection: live.state, signOut })}
      <main className="feed-main">
        {HEADING}
        {!online ? <OfflineNotice loadedAt={loadedAt} /> : null}
        {online || live.state === "connected" ? (
          <LiveStatusNotice state={live.state} online={online} onReconnect={live.reconnect} />
        ) : null}
        {live.warning && !settingsCheck.isPending ? (
          <NoAgencyNotice
            serverWarning={live.warning}
            filtersHideAll={filtersHideAll}
            onOpenSettings={() => setSettingsOpen(true)}
          />
        ) : null}
        {showCached && online ? (
          <Notice severity="warning" className="feed-notice">
            {`Showing alerts loaded at ${formatDateTime(loadedAt ?? 0)}.`}
          </Notice>
        ) : null}
        <FeedViewChips view={filters.view} member={memberView.data} onChange={handleViewChange} />
        <FilterChipsBar
          filters={filters}
          onRemove={handleRemoveFilter}
          onClearAll={() => setFilters((current) => ({ ...NO_FILTERS, view: current.view }))}
        />
        {content}
      </main>
      {unseenArrivals > 0 ? <NewAlertsButton count={unseenArrivals} onClick={handleShowNewest} /> : null}
      <div aria-live="polite" aria-atomic="true" className="kit-visually-hidden">
        {feed.announcement}
      </div>
      <LazyMount when={searchOpen}>
        <SearchDialog
          open={searchOpen}
          initialSearch={filters.search}
          initialShowMachine={filters.showMachine}
          onClose={() => setSearchOpen(false)}
          onSearch={handleSearch}
        />
      </LazyMount>
      <LazyMount when={settingsOpen}>
        <FilterSettingsDialog
          open={settingsOpen}
          onClose={() => setSettingsOpen(false)}
          onSaved={handleFiltersSaved}
        />
      </LazyMount>
      <LazyMount when={openGroup !== null}>
        <GroupedAlertDialog
          group={openGroup}
          onClose={() => setOpenGroup(null)}
          onOpenMessage={(alertId) => {
            setOpenGroup(null);
            openJob(alertId);
          }}
        />
      </LazyMount>
      <LazyMount when={jobId !== null}>
        <JobDetailDialog jobId={jobId} onClose={closeJob} renderExtra={jobExtra} />
      </LazyMount>
      <LazyMount when={savedNotice}>
        <Snackbar
          open={savedNotice}
          anchorOrigin={{ vertical: "bottom", horizontal: "center" }}
          message="Filter settings saved"
          slotProps={{ content: { role: "status" } }}
        />
      </LazyMount>
      {serverErrorNotice}
    </div>
  );
}
