import EmergencyIcon from "@mui/icons-material/Emergency";
import InfoIcon from "@mui/icons-material/Info";
import NotificationImportantIcon from "@mui/icons-material/NotificationImportant";
import NotificationsIcon from "@mui/icons-material/Notifications";
import Chip from "@mui/material/Chip";
import type { SvgIconProps } from "@mui/material/SvgIcon";
import { type TypePresentation, typePresentation } from "@turnout/domain";
import type { ComponentType } from "react";
import { touchTarget } from "./touch-target";

/** The Material icon for each of the domain's icon names (TYPE_PRESENTATION). */
const ICONS: Record<string, ComponentType<SvgIconProps>> = {
  Emergency: EmergencyIcon,
  NotificationImportant: NotificationImportantIcon,
  Info: InfoIcon,
  Notifications: NotificationsIcon,
};

export function TypeIcon({ presentation, ...props }: { presentation: TypePresentation } & SvgIconProps) {
  const Icon = ICONS[presentation.icon] ?? NotificationsIcon;
  return <Icon aria-hidden="true" {...props} />;
}

/**
 * An alert's type as label, colour and icon together (SPEC 4), so it reads without colour too.
 * With `onClick` it is a button that filters the feed by this type.
 */
export function TypeBadge({
  type,
  onClick,
  size = "medium",
}: {
  type: string | null | undefined;
  onClick?: () => void;
  size?: "small" | "medium";
}) {
  const presentation = typePresentation(type);
  return (
    <Chip
      size={size}
      icon={<TypeIcon presentation={presentation} />}
      label={presentation.label.toUpperCase()}
      onClick={onClick}
      aria-label={onClick ? `Show only ${presentation.label} alerts` : undefined}
      sx={{
        bgcolor: presentation.color,
        color: "#fff",
        fontWeight: 700,
        letterSpacing: 0.4,
        "& .MuiChip-icon": { color: "#fff" },
        "&.MuiChip-clickable:hover, &.MuiChip-clickable:focus-visible": { bgcolor: presentation.color },
        ...(onClick ? touchTarget : {}),
      }}
    />
  );
}
