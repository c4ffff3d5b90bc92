import type { ButtonHTMLAttributes, HTMLAttributes, ReactNode } from "react";
import { classNames } from "./class-names";
import {
  cancelPath,
  errorOutlinePath,
  Icon,
  infoOutlinedPath,
  reportProblemOutlinedPath,
  successOutlinedPath,
} from "./icons";
import "./kit.css";

/*
 * The few controls the signed-in feed and its shell show on first paint (issue 31), as plain elements
 * and static rules (kit.css) that look as MUI's did: MUI's components work their styles out with
 * emotion in every first render, and bring MUI's styling engine (~45 KB gzip) onto the feed's path.
 * Everything the feed opens later (dialogs, menus, the admin console, forms) keeps using MUI. Colours
 * are the theme's, as custom properties on the root element (app/baseline.css, from app/theme.ts).
 */

export type KitColor = "primary" | "secondary" | "inherit" | "success" | "warning" | "error";

export interface ButtonProps extends ButtonHTMLAttributes<HTMLButtonElement> {
  /** "text" (the default), "outlined" or "contained", as MUI's Button. */
  variant?: "text" | "outlined" | "contained" | undefined;
  color?: KitColor | undefined;
  size?: "small" | "medium" | "large" | undefined;
  startIcon?: ReactNode;
  fullWidth?: boolean | undefined;
}

/** A button at least 44 px high (a gloved finger), with the app's focus ring. */
export function Button({
  variant = "text",
  color = "primary",
  size = "medium",
  startIcon,
  fullWidth = false,
  className,
  type = "button",
  children,
  ...props
}: ButtonProps) {
  return (
    <button
      type={type}
      className={classNames(
        "kit-button",
        `kit-button--${variant}`,
        `kit-color--${color}`,
        size !== "medium" && `kit-button--${size}`,
        fullWidth && "kit-button--full",
        className,
      )}
      {...props}
    >
      {startIcon ? <span className="kit-button__icon">{startIcon}</span> : null}
      {children}
    </button>
  );
}

export interface IconButtonProps extends ButtonHTMLAttributes<HTMLButtonElement> {
  /** Every icon button says what it does. */
  "aria-label": string;
  color?: KitColor | "default" | undefined;
}

/** A round button around an icon, 44 px square. */
export function IconButton({ color = "default", className, type = "button", ...props }: IconButtonProps) {
  return (
    <button
      type={type}
      className={classNames("kit-icon-button", `kit-color--${color}`, className)}
      {...props}
    />
  );
}

export interface ChipProps extends Omit<HTMLAttributes<HTMLElement>, "onClick" | "color"> {
  label: ReactNode;
  icon?: ReactNode;
  /** A chip with onClick is a button; without, a label. */
  onClick?: (() => void) | undefined;
  /** Shows the remove mark after the label (the chip's onClick removes it). */
  removable?: boolean | undefined;
  variant?: "filled" | "outlined" | undefined;
  color?: "default" | "primary" | "secondary" | undefined;
  size?: "small" | "medium" | undefined;
}

/** A compact label, or a button when it does something, as MUI's Chip (32 px, 24 small). */
export function Chip({
  label,
  icon,
  onClick,
  removable = false,
  variant = "filled",
  color = "default",
  size = "medium",
  className,
  ...props
}: ChipProps) {
  const classes = classNames(
    "kit-chip",
    `kit-chip--${variant}`,
    `kit-chip--${color}`,
    size === "small" && "kit-chip--small",
    onClick && "kit-chip--clickable",
    className,
  );
  const content = (
    <>
      {icon ? <span className="kit-chip__icon">{icon}</span> : null}
      <span className="kit-chip__label">{label}</span>
      {removable ? <Icon path={cancelPath} className="kit-chip__remove" /> : null}
    </>
  );
  if (!onClick) {
    return (
      <span className={classes} {...props}>
        {content}
      </span>
    );
  }
  return (
    <button type="button" className={classes} onClick={onClick} {...props}>
      {content}
    </button>
  );
}

export type Severity = "error" | "warning" | "info" | "success";

const SEVERITY_ICON: Record<Severity, string> = {
  success: successOutlinedPath,
  warning: reportProblemOutlinedPath,
  error: errorOutlinePath,
  info: infoOutlinedPath,
};

export interface NoticeProps extends Omit<HTMLAttributes<HTMLDivElement>, "title"> {
  severity: Severity;
  /** "standard" (tinted, the default) or "filled" (the severity's colour, white text). */
  variant?: "standard" | "filled" | undefined;
  /** Replaces the severity's icon; false shows none. */
  icon?: ReactNode | false;
  title?: ReactNode;
  /** Buttons at the end (use color "inherit"). */
  action?: ReactNode;
  [data: `data-${string}`]: string | boolean | undefined;
}

/** A message in a tinted box with the severity's icon, as MUI's Alert; role "alert" unless told. */
export function Notice({
  severity,
  variant = "standard",
  icon,
  title,
  action,
  className,
  children,
  role = "alert",
  ...props
}: NoticeProps) {
  return (
    <div
      role={role}
      className={classNames("kit-notice", `kit-notice--${variant}`, `kit-notice--${severity}`, className)}
      {...props}
    >
      {icon === false ? null : (
        <div className="kit-notice__icon">
          {icon ?? <Icon path={SEVERITY_ICON[severity]} fontSize="inherit" />}
        </div>
      )}
      <div className="kit-notice__message">
        {title ? <div className="kit-notice__title">{title}</div> : null}
        {children}
      </div>
      {action ? <div className="kit-notice__action">{action}</div> : null}
    </div>
  );
}

/** An indeterminate progress circle in the text's colour (MUI's CircularProgress); hidden from readers. */
export function Spinner({ size = 40, className }: { size?: number; className?: string }) {
  return (
    <span
      className={classNames("kit-spinner", className)}
      style={{ width: size, height: size }}
      aria-hidden="true"
    >
      <svg viewBox="22 22 44 44" focusable="false" aria-hidden="true">
        <circle cx="44" cy="44" r="20.2" fill="none" strokeWidth="3.6" />
      </svg>
    </span>
  );
}
