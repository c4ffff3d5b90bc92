import { ThemeProvider } from "@mui/material/styles";
import useMediaQuery from "@mui/material/useMediaQuery";
import type { ComponentType, ReactNode } from "react";
import { themeFor } from "./theme";

/**
 * MUI's theme (light and dark following the system) for what is built with MUI: the screens and dialogs
 * that load when first opened (`lazyWithTheme`). The feed and its shell are plain elements coloured by
 * baseline.css, so neither MUI nor its theme is on the signed-in feed's path (issue 31).
 */
export function MuiTheme({ children }: { children: ReactNode }) {
  // Read at the first render (no server rendering here), so a phone set to dark never shows a light frame.
  const prefersDark = useMediaQuery("(prefers-color-scheme: dark)", { noSsr: true });
  return <ThemeProvider theme={themeFor(prefersDark ? "dark" : "light")}>{children}</ThemeProvider>;
}

/** The component inside MUI's theme. */
export function withMuiTheme<P extends object>(Component: ComponentType<P>): ComponentType<P> {
  function Themed(props: P) {
    return (
      <MuiTheme>
        <Component {...props} />
      </MuiTheme>
    );
  }
  Themed.displayName = `Themed(${Component.displayName ?? Component.name})`;
  return Themed;
}
