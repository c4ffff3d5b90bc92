import { createTheme, type Theme, type ThemeOptions } from "@mui/material/styles";

/** Minimum size of anything a gloved or hurried finger has to hit. */
const TOUCH_TARGET_PX = 44;

export type ColorMode = "light" | "dark";

const palettes = {
  light: {
    primary: { main: "#b71c1c" },
    secondary: { main: "#0d47a1" },
    background: { default: "#f5f5f5", paper: "#ffffff" },
  },
  dark: {
    primary: { main: "#ef9a9a" },
    secondary: { main: "#90caf9" },
    background: { default: "#121212", paper: "#1e1e1e" },
  },
} satisfies Record<ColorMode, ThemeOptions["palette"]>;

/** The app's visible focus ring, in the scheme's secondary colour. */
export function focusRing(theme: Theme) {
  return {
    "&.Mui-focusVisible, &:focus-visible": {
      outline: "3px solid",
      outlineColor: theme.palette.secondary.main,
      outlineOffset: 2,
    },
  };
}

function createAppTheme(mode: ColorMode): Theme {
  return createTheme({
    palette: { mode, ...palettes[mode] },
    shape: { borderRadius: 8 },
    typography: { button: { textTransform: "none", fontWeight: 600 } },
    components: {
      MuiButton: {
        styleOverrides: { root: ({ theme }) => ({ minHeight: TOUCH_TARGET_PX, ...focusRing(theme) }) },
      },
      MuiIconButton: {
        styleOverrides: {
          root: ({ theme }) => ({
            minWidth: TOUCH_TARGET_PX,
            minHeight: TOUCH_TARGET_PX,
            ...focusRing(theme),
          }),
        },
      },
      MuiMenuItem: { styleOverrides: { root: { minHeight: TOUCH_TARGET_PX } } },
      MuiListItemButton: {
        styleOverrides: { root: ({ theme }) => ({ minHeight: TOUCH_TARGET_PX, ...focusRing(theme) }) },
      },
      MuiInputBase: { styleOverrides: { root: { minHeight: TOUCH_TARGET_PX } } },
      // Focus in blue: a red (primary) outline would read as an error on a form field.
      MuiTextField: { defaultProps: { color: "secondary" } },
    },
  });
}

const themes: Partial<Record<ColorMode, Theme>> = {};

/**
 * The light or the dark theme, each made once, when first needed. The page follows the system
 * setting (providers.tsx). Plain themes rather than MUI's CSS-variable themes: generating the
 * variables of both schemes cost the first render ~100 ms of main thread on a mid-range phone.
 */
export function themeFor(mode: ColorMode): Theme {
  themes[mode] ??= createAppTheme(mode);
  return themes[mode];
}
