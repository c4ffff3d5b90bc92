import {
  type InstallPreference,
  installedPreference,
  installPreferenceSchema,
  isInstallChoiceReset,
  neverRemindPreference,
  remindLaterPreference,
  STANDALONE_CHECK_INTERVAL_MS,
  shouldShowInstallBanner,
} from "@turnout/domain";
import { useCallback, useEffect, useRef, useState } from "react";
import { storage } from "../../api/storage";
import { consumeInstallPrompt, getInstallPrompt, startInstallPromptCapture } from "./install-prompt";
import { isIos, isRunningStandalone } from "./platform";

/** Which manual instructions the banner shows when the browser has no install prompt to open. */
export type InstallHelp = "ios" | "browser-menu" | null;

/**
 * The install banner's state and actions (SPEC 2, 3, 4): the rule itself is the domain's
 * `shouldShowInstallBanner`, re-evaluated every second so that switching to the installed app,
 * a choice made in another tab or the end of the 48 h Remind Later pause shows at once.
 */
export function useInstallBanner(isLoggedIn: boolean) {
  // What this page stored last: still honoured when the browser refuses to keep localStorage.
  const chosen = useRef<InstallPreference | null>(null);
  const [help, setHelp] = useState<InstallHelp>(null);

  const evaluate = useCallback(() => {
    let preference = storage.getInstallPreference(installPreferenceSchema) ?? chosen.current;
    // An admin reset the banner after this choice (the time comes with the profile): offer it again.
    if (isInstallChoiceReset(preference, storage.getInstallBannerResetAt())) {
      storage.clearInstallPreference();
      storage.clearInstallBannerDismissed();
      chosen.current = null;
      preference = null;
    }
    return shouldShowInstallBanner({
      isStandalone: isRunningStandalone(),
      isLoggedIn,
      preference,
      dismissedThisSession: storage.isInstallBannerDismissed(),
      now: Date.now(),
    });
  }, [isLoggedIn]);
  const [visible, setVisible] = useState(evaluate);

  useEffect(() => {
    startInstallPromptCapture();
  }, []);

  useEffect(() => {
    setVisible(evaluate());
    const timer = window.setInterval(() => setVisible(evaluate()), STANDALONE_CHECK_INTERVAL_MS);
    return () => window.clearInterval(timer);
  }, [evaluate]);

  const store = useCallback(
    (preference: InstallPreference, { forSession = false } = {}) => {
      chosen.current = preference;
      storage.setInstallPreference(preference);
      if (forSession) storage.setInstallBannerDismissed();
      setHelp(null);
      setVisible(evaluate());
    },
    [evaluate],
  );

  // Installed from the browser's own menu: the banner has nothing left to offer.
  useEffect(() => {
    const handleInstalled = () => store(installedPreference(Date.now()));
    window.addEventListener("appinstalled", handleInstalled);
    return () => window.removeEventListener("appinstalled", handleInstalled);
  }, [store]);

  const remindLater = useCallback(() => store(remindLaterPreference(Date.now())), [store]);

  // The session flag as well, so the banner stays away this session even if localStorage is refused.
  const neverRemind = useCallback(
    () => store(neverRemindPreference(Date.now()), { forSession: true }),
    [store],
  );

  const install = useCallback(async () => {
    const prompt = getInstallPrompt();
    if (!prompt) {
      setHelp(isIos() ? "ios" : "browser-menu");
      return;
    }
    // A prompt opens once; the browser offers a new one later if the app is still installable.
    consumeInstallPrompt();
    try {
      await prompt.prompt();
      const choice = await prompt.userChoice;
      if (choice.outcome === "accepted") store(installedPreference(Date.now()));
      // Declining the browser's dialog counts as Remind Later, and no second offer this session.
      else store(remindLaterPreference(Date.now()), { forSession: true });
    } catch {
      setHelp(isIos() ? "ios" : "browser-menu");
    }
  }, [store]);

  return { visible, help, install, remindLater, neverRemind };
}
