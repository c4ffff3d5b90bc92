import { PRODUCT_NAME } from "@turnout/domain";
import { useId } from "react";
import type { SessionUser } from "../../api/types";
import { closePath, Icon } from "../../ui/kit/icons";
import { Button, IconButton } from "../../ui/kit/kit";
import { type InstallHelp, useInstallBanner } from "./use-install-banner";
import "./install-banner.css";

const HELP_TEXT: Record<Exclude<InstallHelp, null>, string> = {
  ios: "To install on iPhone or iPad: tap the Share button, then 'Add to Home Screen'.",
  "browser-menu":
    "To install: open your browser's menu and choose 'Install app' or 'Add to Home screen'. Not every browser offers it.",
};

/**
 * 'Install Turnout App' with 'Remind Later', 'Install' and a never-remind dismiss (SPEC 2 and 4).
 * Renders nothing for a signed-out visitor, inside the installed app, after never-remind or
 * installing, within 48 h of Remind Later, and after a dismissal earlier in this browser session.
 * Plain elements styled by install-banner.css (issue 31): it shows above the feed on first paint.
 */
export function InstallBanner({ user }: { user: SessionUser | null | undefined }) {
  const banner = useInstallBanner(Boolean(user));
  const titleId = useId();
  if (!banner.visible) return null;

  return (
    <section aria-labelledby={titleId} className="install-banner">
      <img className="install-banner__icon" src="/icon.svg" alt="" width={40} height={40} />
      <div className="install-banner__text">
        <p id={titleId} className="install-banner__title">
          Install {PRODUCT_NAME} App
        </p>
        <p className="kit-text-body2 kit-text-secondary">
          Open alerts straight from your home screen, even with a poor connection.
        </p>
        {banner.help && (
          <p className="kit-text-body2 install-banner__help" role="status">
            {HELP_TEXT[banner.help]}
          </p>
        )}
      </div>
      <div className="install-banner__actions">
        <Button onClick={banner.remindLater}>Remind Later</Button>
        <Button variant="contained" onClick={() => void banner.install()}>
          Install
        </Button>
        <IconButton aria-label="Don't remind me again" onClick={banner.neverRemind}>
          <Icon path={closePath} />
        </IconButton>
      </div>
    </section>
  );
}
