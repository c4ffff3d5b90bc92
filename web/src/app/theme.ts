import { createTheme } from "@mui/material/styles";

/** Minimum size of anything a gloved or hurried finger has to hit. */
const TOUCH_TARGET_PX = 44;

const focusRing = {
  "&.Mui-focusVisible, &:focus-visible": {
    outline: "3px solid",
    outlineColor: "var(--mui-palette-secondary-main)",
    outlineOffset: 2,
  },
};

/**
 * Light and dark schemes; CSS media queries pick one from `prefers-color-scheme`, so the page
 * is dark at night on a phone set to dark without a flash of white.
 */
export const theme = createTheme({
  cssVariables: { colorSchemeSelector: "media" },
  colorSchemes: {
    light: {
      palette: {
        primary: { main: "#b71c1c" },
        secondary: { main: "#0d47a1" },
        background: { default: "#f5f5f5", paper: "#ffffff" },
      },
    },
    dark: {
      palette: {
        primary: { main: "#ef9a9a" },
        secondary: { main: "#90caf9" },
        background: { default: "#121212", paper: "#1e1e1e" },
      },
    },
  },
  shape: { borderRadius: 8 },
  typography: { button: { textTransform: "none", fontWeight: 600 } },
  components: {
    MuiButton: { styleOverrides: { root: { minHeight: TOUCH_TARGET_PX, ...focusRing } } },
    MuiIconButton: {
      styleOverrides: { root: { minWidth: TOUCH_TARGET_PX, minHeight: TOUCH_TARGET_PX, ...focusRing } },
    },
    MuiMenuItem: { styleOverrides: { root: { minHeight: TOUCH_TARGET_PX } } },
    MuiListItemButton: { styleOverrides: { root: { minHeight: TOUCH_TARGET_PX, ...focusRing } } },
    MuiInputBase: { styleOverrides: { root: { minHeight: TOUCH_TARGET_PX } } },
    // Focus in blue: a red (primary) outline would read as an error on a form field.
    MuiTextField: { defaultProps: { color: "secondary" } },
  },
});
