import {
  type AlertType,
  displayText,
  normalizeAlertType,
  typePresentation,
  UNMAPPED_AGENCY,
} from "@turnout/domain";
import { type CSSProperties, memo, type ReactNode, useCallback, useId, useMemo, useState } from "react";
import { type Alert, alertTime } from "../../api/alerts";
import { Icon, placePath, settingsInputAntennaPath } from "../../ui/kit/icons";
import { Button } from "../../ui/kit/kit";
import { safeLogoPath } from "../../ui/safe-logo-path";
import { absoluteTimeLabel, clockTimeLabel, relativeTimeLabel } from "../../ui/time-labels";
import type { FeedItem } from "./feed-items";
import { TypeIcon } from "./type-badge";
import "./alert-card.css";

export interface AlertCardHandlers {
  onOpen: (item: FeedItem) => void;
  onFilterType: (type: AlertType) => void;
  onFilterAgency: (agency: { id: string; name: string }) => void;
  onFilterArea: (area: string) => void;
  /** Admin context: offered on a card whose capcode no agency has yet (UNMAPPED). */
  onAssignCapcode?: (alert: Alert) => void;
  /** What another feature adds beside the card's time (e.g. a toggle showing who is responding). */
  renderAside?: (item: FeedItem, panel: CardPanel) => ReactNode;
  /** What another feature adds at the foot of a card (e.g. the answer row while the panel is open). */
  renderFooter?: (item: FeedItem, panel: CardPanel) => ReactNode;
}

/** A card's collapsible panel (the answer row): closed until the member opens it from the header. */
export interface CardPanel {
  open: boolean;
  /** The panel element's id, for the toggle's aria-controls. */
  id: string;
  onToggle: () => void;
}

/** The distinct capcodes a card's messages were paged to, in the order first seen. */
function capcodesOf(item: FeedItem): string[] {
  const seen = new Set<string>();
  for (const message of [item.group.primary_message, ...item.group.messages]) {
    if (message.capcode) seen.add(message.capcode);
  }
  return [...seen];
}

/**
 * One card of the feed, compact enough that at least four fit a phone's screen (issue 26): type
 * (label, colour, icon), agency (logo when it has one; its code on a phone), area, relative time and
 * whatever another feature adds beside it (who is responding), then up to three lines of the displayed
 * text. A job with several messages is one card that shows its newest message, how many there are and
 * when the first was paged, and opens them all. The card's panel (the answer row) opens from its header.
 */
export const AlertCard = memo(function AlertCard({
  item,
  now,
  highlighted,
  showCapcode = false,
  position,
  setSize,
  ...handlers
}: {
  item: FeedItem;
  now: number;
  highlighted: boolean;
  /** Admin context: the pager addresses the card's messages were paged to. */
  showCapcode?: boolean;
  /** Place in the feed (1-based) and the feed's size, -1 while more can load (ARIA feed pattern). */
  position?: number;
  setSize?: number;
} & AlertCardHandlers) {
  const panelId = useId();
  const [panelOpen, setPanelOpen] = useState(false);
  const togglePanel = useCallback(() => setPanelOpen((open) => !open), []);
  const panel = useMemo<CardPanel>(
    () => ({ open: panelOpen, id: panelId, onToggle: togglePanel }),
    [panelOpen, panelId, togglePanel],
  );
  const primary = item.group.primary_message;
  const type = item.group.has_emergency ? "emergency" : normalizeAlertType(primary.type);
  const presentation = typePresentation(type);
  const agencyName = primary.agency_name?.trim() || null;

  // A card arriving on top moves every card's place in the feed: only this shell renders again for
  // that, its content (most of the card's elements and styles) only when what it shows changes.
  return (
    <article
      className={highlighted ? "alert-card alert-card--new" : "alert-card"}
      style={{ "--type-color": presentation.color } as CSSProperties}
      aria-label={`${presentation.label} alert${agencyName ? ` from ${agencyName}` : ""}`}
      aria-posinset={position}
      aria-setsize={setSize}
      data-alert-id={primary.id}
    >
      <AlertCardContent
        item={item}
        now={now}
        highlighted={highlighted}
        showCapcode={showCapcode}
        panel={panel}
        {...handlers}
      />
    </article>
  );
});

const AlertCardContent = memo(function AlertCardContent({
  item,
  now,
  highlighted,
  showCapcode,
  panel,
  onOpen,
  onFilterType,
  onFilterAgency,
  onFilterArea,
  onAssignCapcode,
  renderAside,
  renderFooter,
}: {
  item: FeedItem;
  now: number;
  highlighted: boolean;
  showCapcode: boolean;
  panel: CardPanel;
} & AlertCardHandlers) {
  const textId = useId();
  const { group, newest } = item;
  const primary = group.primary_message;
  const first = group.messages[0] ?? primary;
  const type = group.has_emergency ? "emergency" : normalizeAlertType(primary.type);
  const logo = safeLogoPath(primary.agency_logo_path);
  const agencyName = primary.agency_name?.trim() || null;
  const agencyCode = primary.agency_code?.trim() || null;
  const agencyId =
    primary.agency_id === null || primary.agency_id === undefined ? null : String(primary.agency_id);
  const area = primary.area?.trim() || null;
  const grouped = group.is_grouped && group.messages.length > 1;
  const capcodes = showCapcode ? capcodesOf(item) : [];
  const unmapped = primary.agency_code === UNMAPPED_AGENCY.code && Boolean(primary.capcode);
  const openLabel = grouped
    ? `Open all ${group.total_count} messages of job ${group.job_number ?? primary.id}`
    : `Open details of job ${primary.id}`;
  const presentation = typePresentation(type);

  return (
    <>
      <div className="alert-card__head">
        <button
          type="button"
          className="card-chip card-chip--type"
          onClick={() => onFilterType(type)}
          aria-label={`Show only ${presentation.label} alerts`}
        >
          <TypeIcon presentation={presentation} className="card-chip__icon" />
          <span className="card-chip__label">{presentation.label.toUpperCase()}</span>
        </button>
        {agencyName && agencyId ? (
          <button
            type="button"
            className="card-chip card-chip--agency"
            onClick={() => onFilterAgency({ id: agencyId, name: agencyName })}
            aria-label={`Show only ${agencyName} alerts`}
          >
            {logo ? <img className="card-chip__avatar" src={logo} alt="" loading="lazy" /> : null}
            <span className="card-chip__label">
              {agencyCode && agencyCode !== agencyName ? (
                <>
                  <span className="alert-card__wide">{agencyName}</span>
                  <span className="alert-card__narrow">{agencyCode}</span>
                </>
              ) : (
                agencyName
              )}
            </span>
          </button>
        ) : null}
        {area ? (
          <button
            type="button"
            className="card-chip card-chip--area"
            onClick={() => onFilterArea(area)}
            aria-label={`Show only alerts in ${area}`}
          >
            <Icon path={placePath} className="card-chip__icon" />
            <span className="card-chip__label">{area}</span>
          </button>
        ) : null}
        {capcodes.map((capcode) => (
          <span
            key={capcode}
            role="img"
            className="card-chip card-chip--capcode"
            aria-label={`Capcode ${capcode}`}
          >
            <Icon path={settingsInputAntennaPath} className="card-chip__icon" />
            <span className="card-chip__label">{capcode}</span>
          </span>
        ))}
        {onAssignCapcode && unmapped ? (
          <Button
            size="small"
            variant="contained"
            color="warning"
            className="alert-card__assign"
            onClick={() => onAssignCapcode(primary)}
          >
            {`Assign capcode ${primary.capcode}`}
          </Button>
        ) : null}
        {highlighted ? <span className="alert-card__new">NEW</span> : null}
        <div className="alert-card__aside">
          <time
            className="alert-card__time"
            dateTime={alertTime(newest)}
            title={absoluteTimeLabel(alertTime(newest))}
          >
            {relativeTimeLabel(alertTime(newest), now)}
          </time>
          {renderAside?.(item, panel)}
        </div>
      </div>
      <button
        type="button"
        className="alert-card__open"
        onClick={() => onOpen(item)}
        aria-label={openLabel}
        aria-describedby={textId}
      >
        <span id={textId} className="alert-card__text">
          {displayText(newest.message)}
        </span>
        {grouped ? (
          <span className="alert-card__job">
            {group.job_number ? `Job ${group.job_number} · ` : ""}
            {`${group.total_count} messages · first paged `}
            <time dateTime={alertTime(first)} title={absoluteTimeLabel(alertTime(first))}>
              {clockTimeLabel(alertTime(first), now)}
            </time>
          </span>
        ) : null}
      </button>
      {renderFooter?.(item, panel)}
    </>
  );
});
