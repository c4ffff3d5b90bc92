import { Suspense, useState } from "react";
import { lazyWithTheme } from "../../ui/lazy-with-theme";
import { LoadingScreen } from "../../ui/loading-screen";
import { useAuth } from "./auth-provider";
import { LoginScreen } from "./login-screen";
import { recoveryTokenFromLocation } from "./recovery-link";

// Only the login screen is in the first download, as plain elements; the others are built with MUI and
// load with its theme when someone needs them (issue 31).
const RegisterScreen = lazyWithTheme(() => import("./register-screen").then((m) => m.RegisterScreen));
const ActivationScreen = lazyWithTheme(() => import("./activation-screen").then((m) => m.ActivationScreen));
const RecoveryScreen = lazyWithTheme(() => import("./recovery-screen").then((m) => m.RecoveryScreen));

type View =
  | { name: "recover"; token: string }
  | { name: "login"; phone: string; moved: boolean }
  | { name: "register" }
  | { name: "activate"; phone: string };

/** The signed-out screens and the moves between them (SPEC 4). */
export function AuthScreens() {
  const { completeSignIn } = useAuth();
  const [view, setView] = useState<View>(() => {
    const token = recoveryTokenFromLocation(window.location.hash);
    return token ? { name: "recover", token } : { name: "login", phone: "", moved: false };
  });

  const goToLogin = (phone = "") => setView({ name: "login", phone, moved: true });
  const goToActivation = (phone: string) => setView({ name: "activate", phone });

  switch (view.name) {
    case "recover":
      return (
        <Suspense fallback={<LoadingScreen />}>
          <RecoveryScreen token={view.token} onSignedIn={completeSignIn} onDone={() => goToLogin()} />
        </Suspense>
      );
    case "register":
      return (
        <Suspense fallback={<LoadingScreen />}>
          <RegisterScreen onBackToLogin={goToLogin} onRegistered={goToActivation} />
        </Suspense>
      );
    case "activate":
      return (
        <Suspense fallback={<LoadingScreen />}>
          <ActivationScreen phone={view.phone} onBackToLogin={() => goToLogin(view.phone)} />
        </Suspense>
      );
    default:
      return (
        <LoginScreen
          key={`${view.phone}-${view.moved}`}
          initialPhone={view.phone}
          focusTitle={view.moved}
          onCreateAccount={() => setView({ name: "register" })}
          onCreateAccountIntent={RegisterScreen.preload}
          onNeedsVerification={goToActivation}
          onSignedIn={completeSignIn}
        />
      );
  }
}
