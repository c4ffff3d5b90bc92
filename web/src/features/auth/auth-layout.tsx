import { PRODUCT_NAME } from "@turnout/domain";
import { type ReactNode, useEffect, useRef } from "react";
import { DeviceCheckNotice } from "./device-check-notice";
import "./auth-layout.css";

/** The id of the subtitle, so the field a screen focuses can be described by it. */
export const AUTH_SUBTITLE_ID = "auth-subtitle";

/**
 * The frame of every signed-out screen, as plain elements (auth-layout.css): the sign-in screen
 * paints without MUI (issue 31). The title is the page's h1; it takes focus when the screen changes
 * so screen-reader users hear where they are.
 */
export function AuthLayout({
  title,
  subtitle,
  focusTitle = false,
  children,
}: {
  title: string;
  subtitle?: ReactNode;
  focusTitle?: boolean;
  children: ReactNode;
}) {
  const titleRef = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (focusTitle) titleRef.current?.focus();
  }, [focusTitle]);

  return (
    <main className="auth-layout">
      <div className="auth-layout__column">
        <div className="auth-layout__brand">
          <img src="/icon.svg" alt="" width={56} height={56} />
          <p className="auth-layout__product">{PRODUCT_NAME}</p>
        </div>
        <div className="auth-layout__paper">
          <h1 ref={titleRef} tabIndex={-1} className="auth-layout__title">
            {title}
          </h1>
          {subtitle ? (
            <p id={AUTH_SUBTITLE_ID} className="auth-layout__subtitle">
              {subtitle}
            </p>
          ) : null}
          <DeviceCheckNotice />
          {children}
        </div>
      </div>
    </main>
  );
}
