import { type TypePresentation, typePresentation } from "@turnout/domain";
import type { CSSProperties } from "react";
import {
  emergencyPath,
  Icon,
  type IconProps,
  infoPath,
  notificationImportantPath,
  notificationsPath,
} from "../../ui/kit/icons";
import { Chip } from "../../ui/kit/kit";
import "./feed.css";

/** The Material icon (its path) for each of the domain's icon names (TYPE_PRESENTATION). */
const ICONS: Record<string, string> = {
  Emergency: emergencyPath,
  NotificationImportant: notificationImportantPath,
  Info: infoPath,
  Notifications: notificationsPath,
};

export function TypeIcon({
  presentation,
  ...props
}: { presentation: TypePresentation } & Omit<IconProps, "path">) {
  return <Icon path={ICONS[presentation.icon] ?? notificationsPath} {...props} />;
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
      className="type-badge"
      style={{ "--type-color": presentation.color } as CSSProperties}
      icon={<TypeIcon presentation={presentation} />}
      label={presentation.label.toUpperCase()}
      onClick={onClick}
      aria-label={onClick ? `Show only ${presentation.label} alerts` : undefined}
    />
  );
}
