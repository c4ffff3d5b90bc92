import { keyframes } from "@emotion/react";
import PlaceIcon from "@mui/icons-material/Place";
import SettingsInputAntennaIcon from "@mui/icons-material/SettingsInputAntenna";
import Avatar from "@mui/material/Avatar";
import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import Card from "@mui/material/Card";
import CardActionArea from "@mui/material/CardActionArea";
import Chip from "@mui/material/Chip";
import Typography from "@mui/material/Typography";
import {
  type AlertType,
  displayText,
  normalizeAlertType,
  typePresentation,
  UNMAPPED_AGENCY,
} from "@turnout/domain";
import { memo, type ReactNode, useCallback, useId, useMemo, useState } from "react";
import { type Alert, alertTime } from "../../api/alerts";
import { safeLogoPath } from "../../ui/safe-logo-path";
import { absoluteTimeLabel, clockTimeLabel, relativeTimeLabel } from "../../ui/time-labels";
import type { FeedItem } from "./feed-items";
import { touchTarget } from "./touch-target";
import { TypeBadge } from "./type-badge";

const arriveByColor = new Map<string, ReturnType<typeof keyframes>>();

/** A new card's arrival pulse in the theme's warning colour (one animation per colour scheme). */
function arrive(color: string) {
  let animation = arriveByColor.get(color);
  if (!animation) {
    animation = keyframes`
      from { box-shadow: 0 0 0 4px ${color}; }
      to { box-shadow: 0 0 0 0 transparent; }
    `;
    arriveByColor.set(color, animation);
  }
  return animation;
}

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

/** Text past this many lines is cut on the card (the popup has it whole): four cards fit a phone's screen. */
const CARD_TEXT_LINES = 3;

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
    <Card
      component="article"
      variant="outlined"
      aria-label={`${presentation.label} alert${agencyName ? ` from ${agencyName}` : ""}`}
      aria-posinset={position}
      aria-setsize={setSize}
      data-alert-id={primary.id}
      sx={{
        borderLeft: "6px solid",
        borderLeftColor: presentation.color,
        ...(highlighted
          ? {
              animation: (theme) => `${arrive(theme.palette.warning.main)} 1.2s ease-out 3`,
              "@media (prefers-reduced-motion: reduce)": { animation: "none", outline: "3px solid" },
              outlineColor: "warning.main",
            }
          : {}),
      }}
    >
      <AlertCardContent
        item={item}
        now={now}
        highlighted={highlighted}
        showCapcode={showCapcode}
        panel={panel}
        {...handlers}
      />
    </Card>
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

  return (
    <>
      <Box
        sx={{
          display: "flex",
          // One line on a phone: the area gives way (cut with an ellipsis; its button's name and the
          // popup say it whole) before the type, the agency's code, the time or the answers do.
          flexWrap: { xs: "nowrap", sm: "wrap" },
          alignItems: "center",
          columnGap: 0.5,
          rowGap: 0.5,
          px: 1.25,
          pt: 1,
          "& > *": { flexShrink: 0 },
        }}
      >
        <TypeBadge type={type} size="small" compact onClick={() => onFilterType(type)} />
        {agencyName && agencyId ? (
          <Chip
            size="small"
            variant="outlined"
            avatar={logo ? <Avatar src={logo} alt="" slotProps={{ img: { loading: "lazy" } }} /> : undefined}
            label={
              agencyCode && agencyCode !== agencyName ? (
                <>
                  <Box component="span" sx={{ display: { xs: "none", sm: "inline" } }}>
                    {agencyName}
                  </Box>
                  <Box component="span" sx={{ display: { xs: "inline", sm: "none" } }}>
                    {agencyCode}
                  </Box>
                </>
              ) : (
                agencyName
              )
            }
            onClick={() => onFilterAgency({ id: agencyId, name: agencyName })}
            aria-label={`Show only ${agencyName} alerts`}
            sx={{ ...touchTarget, minWidth: 0, maxWidth: { xs: "5.5rem", sm: "none" } }}
          />
        ) : null}
        {area ? (
          <Chip
            size="small"
            variant="outlined"
            icon={<PlaceIcon aria-hidden="true" />}
            label={area}
            onClick={() => onFilterArea(area)}
            aria-label={`Show only alerts in ${area}`}
            sx={{
              ...touchTarget,
              "&&": { flexShrink: 2 },
              minWidth: 0,
              maxWidth: { xs: "7rem", sm: "10rem" },
              "& .MuiChip-icon": { display: { xs: "none", sm: "inline-block" } },
            }}
          />
        ) : null}
        {capcodes.map((capcode) => (
          <Chip
            key={capcode}
            size="small"
            icon={<SettingsInputAntennaIcon aria-hidden="true" />}
            label={capcode}
            aria-label={`Capcode ${capcode}`}
            sx={{ fontFamily: "monospace" }}
          />
        ))}
        {onAssignCapcode && unmapped ? (
          <Button size="small" variant="contained" color="warning" onClick={() => onAssignCapcode(primary)}>
            {`Assign capcode ${primary.capcode}`}
          </Button>
        ) : null}
        {highlighted ? (
          <Typography component="span" variant="caption" sx={{ fontWeight: 700, color: "warning.main" }}>
            NEW
          </Typography>
        ) : null}
        <Box sx={{ ml: "auto", display: "flex", alignItems: "center", gap: 0.5 }}>
          <Typography
            component="time"
            variant="body2"
            dateTime={alertTime(newest)}
            title={absoluteTimeLabel(alertTime(newest))}
            sx={{ color: "text.secondary", fontWeight: 600, whiteSpace: "nowrap" }}
          >
            {relativeTimeLabel(alertTime(newest), now)}
          </Typography>
          {renderAside?.(item, panel)}
        </Box>
      </Box>
      <CardActionArea
        onClick={() => onOpen(item)}
        aria-label={openLabel}
        aria-describedby={textId}
        sx={{
          px: 1.25,
          pt: 0.75,
          pb: 1,
          minHeight: 44,
          "&.Mui-focusVisible": {
            outline: "3px solid",
            outlineColor: "secondary.main",
            outlineOffset: -3,
          },
        }}
      >
        <Typography
          id={textId}
          component="p"
          sx={{
            fontSize: "1.05rem",
            lineHeight: 1.4,
            whiteSpace: "pre-wrap",
            overflowWrap: "anywhere",
            display: "-webkit-box",
            WebkitLineClamp: CARD_TEXT_LINES,
            WebkitBoxOrient: "vertical",
            overflow: "hidden",
          }}
        >
          {displayText(newest.message)}
        </Typography>
        {grouped ? (
          <Typography
            component="p"
            variant="body2"
            sx={{ mt: 0.5, color: "text.secondary", fontWeight: 600 }}
          >
            {group.job_number ? `Job ${group.job_number} · ` : ""}
            {`${group.total_count} messages · first paged `}
            <time dateTime={alertTime(first)} title={absoluteTimeLabel(alertTime(first))}>
              {clockTimeLabel(alertTime(first), now)}
            </time>
          </Typography>
        ) : null}
      </CardActionArea>
      {renderFooter?.(item, panel)}
    </>
  );
});
