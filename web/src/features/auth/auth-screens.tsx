import { useState } from "react";
import { ActivationScreen } from "./activation-screen";
import { useAuth } from "./auth-provider";
import { LoginScreen } from "./login-screen";
import { RegisterScreen } from "./register-screen";

type View =
  | { name: "login"; phone: string; moved: boolean }
  | { name: "register" }
  | { name: "activate"; phone: string };

/** The signed-out screens and the moves between them (SPEC 4). */
export function AuthScreens() {
  const { completeSignIn } = useAuth();
  const [view, setView] = useState<View>({ name: "login", phone: "", moved: false });

  const goToLogin = (phone = "") => setView({ name: "login", phone, moved: true });
  const goToActivation = (phone: string) => setView({ name: "activate", phone });

  switch (view.name) {
    case "register":
      return <RegisterScreen onBackToLogin={goToLogin} onRegistered={goToActivation} />;
    case "activate":
      return <ActivationScreen phone={view.phone} onBackToLogin={() => goToLogin(view.phone)} />;
    default:
      return (
        <LoginScreen
          key={`${view.phone}-${view.moved}`}
          initialPhone={view.phone}
          focusTitle={view.moved}
          onCreateAccount={() => setView({ name: "register" })}
          onNeedsVerification={goToActivation}
          onSignedIn={completeSignIn}
        />
      );
  }
}
