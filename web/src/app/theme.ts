import { alpha, createTheme, darken, lighten, type Theme, type ThemeOptions } from "@mui/material/styles";

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
 * The theme's colours that the static stylesheets read (the plain kit's ui/kit/kit.css, the feed's and
 * the header's stylesheets), as CSS custom properties: those stylesheets replace MUI components whose
 * styles emotion worked out in every render (issue 31), and take their colours from here, through
 * baseline.css (themeStylesheet), rather than copies.
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
    "--app-primary": palette.primary.main,
    "--app-on-primary": palette.primary.contrastText,
    "--app-secondary": palette.secondary.main,
    "--app-on-secondary": palette.secondary.contrastText,
    "--app-error": palette.error.main,
    "--app-on-error": palette.error.contrastText,
    "--app-info": palette.info.main,
    // MUI's AppBar in the primary colour; on the dark theme a raised paper (elevation 4's overlay).
    "--app-header": light ? palette.primary.main : palette.background.paper,
    "--app-header-overlay": light
      ? "none"
      : "linear-gradient(rgba(255, 255, 255, 0.08), rgba(255, 255, 255, 0.08))",
    "--app-on-header": light ? palette.primary.contrastText : palette.text.primary,
    ...severityVariables(theme),
  };
}

const SEVERITIES = ["error", "warning", "info", "success"] as const;

/** MUI's Alert colours per severity: the standard (tinted) box, and the filled one. */
function severityVariables({ palette }: Theme): Record<string, string> {
  const light = palette.mode === "light";
  const text = light ? darken : lighten;
  const background = light ? lighten : darken;
  const out: Record<string, string> = {};
  for (const severity of SEVERITIES) {
    const colour = palette[severity];
    out[`--app-${severity}-notice-text`] = text(colour.light, 0.6);
    out[`--app-${severity}-notice-bg`] = background(colour.light, 0.9);
    out[`--app-${severity}-filled`] = light ? colour.main : colour.dark;
    // White on the light theme's info blue is 3.85:1; its dark shade passes AA (the alarm's notice).
    if (severity === "info") out["--app-info-filled-strong"] = colour.dark;
    out[`--app-on-${severity}-filled`] = palette.getContrastText(colour.main);
  }
  return out;
}

const themes: Partial<Record<ColorMode, Theme>> = {};

/**
 * The light or the dark theme, each made once, when first needed. What is built with MUI follows the
 * system setting (mui-theme.tsx); the rest reads the same colours from baseline.css. Plain themes rather than MUI's CSS-variable themes: generating the
 * variables of both schemes cost the first render ~100 ms of main thread on a mid-range phone.
 */
export function themeFor(mode: ColorMode): Theme {
  themes[mode] ??= createAppTheme(mode);
  return themes[mode];
}

/** Between these lines, app/baseline.css holds themeStylesheet() (scripts/theme-css.ts writes it). */
export const THEME_CSS_START = "/* theme: written by web/scripts/theme-css.ts from app/theme.ts */";
export const THEME_CSS_END = "/* end of theme */";

/**
 * Both themes' colours as custom properties on the root element, light unless the system asks for
 * dark: a static stylesheet, so the first paint has them without MUI (issue 31). A test checks that
 * baseline.css holds exactly this.
 */
export function themeStylesheet(): string {
  const block = (mode: ColorMode, indent: string) =>
    Object.entries(themeCssVariables(themeFor(mode)))
      .map(([name, value]) => `${indent}${name}: ${value};`)
      .join("\n");
  return [
    THEME_CSS_START,
    ":root {",
    block("light", "  "),
    "}",
    "",
    "@media (prefers-color-scheme: dark) {",
    "  :root {",
    block("dark", "    "),
    "  }",
    "}",
    THEME_CSS_END,
  ].join("\n");
}
