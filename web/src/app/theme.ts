import { alpha, createTheme, type Theme, type ThemeOptions } from "@mui/material/styles";

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

/**
 * The theme's colours that the static stylesheets read (app/baseline.css, the feed card's
 * alert-card.css, its answers toggle's answers-toggle.css), as CSS custom properties: those stylesheets
 * replace MUI components whose styles emotion worked out in every render (issue 31), and take their
 * colours from here rather than copies.
 * The grey shades are the ones MUI's Chip uses for its outline and icon.
 */
export function themeCssVariables(theme: Theme): Record<string, string> {
  const { palette } = theme;
  const light = palette.mode === "light";
  return {
    "color-scheme": palette.mode,
    "--app-text": palette.text.primary,
    "--app-text-secondary": palette.text.secondary,
    "--app-background": palette.background.default,
    "--app-paper": palette.background.paper,
    "--app-divider": palette.divider,
    "--app-hover": palette.action.hover,
    "--app-filled": palette.action.selected,
    "--app-outline": light ? palette.grey[400] : palette.grey[700],
    "--app-icon": light ? palette.grey[700] : palette.grey[300],
    "--app-focus": palette.secondary.main,
    "--app-warning": palette.warning.main,
    "--app-success": palette.success.main,
    "--app-success-hover": palette.success.dark,
    "--app-on-success": palette.success.contrastText,
    // MUI's contained Button in the inherited colour, and its Skeleton's fill.
    "--app-raised": light ? palette.grey[300] : palette.grey[800],
    "--app-raised-hover": light ? palette.grey.A100 : palette.grey[700],
    "--app-placeholder": alpha(palette.text.primary, light ? 0.11 : 0.13),
    // MUI's contained Button raised at rest, hovered, focused and pressed.
    "--app-shadow-raised": theme.shadows[2],
    "--app-shadow-raised-hover": theme.shadows[4],
    "--app-shadow-raised-focus": theme.shadows[6],
    "--app-shadow-raised-pressed": theme.shadows[8],
  };
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
