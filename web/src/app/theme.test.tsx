import { readFileSync } from "node:fs";
import path from "node:path";
import { useTheme } from "@mui/material/styles";
import { render, screen } from "@testing-library/react";
import { MuiTheme } from "./mui-theme";
import { THEME_CSS_END, THEME_CSS_START, themeCssVariables, themeFor, themeStylesheet } from "./theme";

/** The system's colour scheme as matchMedia answers it. */
function prefersDark(dark: boolean) {
  const original = window.matchMedia;
  vi.spyOn(window, "matchMedia").mockImplementation((query: string) => ({
    ...original(query),
    matches: query === "(prefers-color-scheme: dark)" ? dark : original(query).matches,
  }));
}

/** Each `name: value` of a stylesheet, in order, with its white space folded. */
function declarationsOf(css: string): string[] {
  return [...css.matchAll(/([\w-]+):\s*([^;{}]+);/g)].map(
    ([, name, value]) => `${name}: ${value?.replace(/\s+/g, "").trim()}`,
  );
}

/** What MUI's theme says inside MuiTheme. */
function ThemeMode() {
  const theme = useTheme();
  return <p>{`${theme.palette.mode} ${theme.palette.primary.main}`}</p>;
}

describe("the themes", () => {
  it("are in baseline.css as written from theme.ts (else run: npx tsx web/scripts/theme-css.ts)", () => {
    const css = readFileSync(path.join(__dirname, "baseline.css"), "utf8");
    const block = css.slice(css.indexOf(THEME_CSS_START), css.indexOf(THEME_CSS_END) + THEME_CSS_END.length);
    // Biome formats the stylesheet (long values wrap), so compare the declarations, not the text.
    expect(declarationsOf(block)).toEqual(declarationsOf(themeStylesheet()));
    expect(declarationsOf(block).length).toBeGreaterThan(40);
  });

  it.each(["light", "dark"] as const)("give the static stylesheets the %s theme's own colours", (mode) => {
    const theme = themeFor(mode);
    const { palette } = theme;
    const variables = themeCssVariables(theme);
    const dark = mode === "dark";
    expect(variables["color-scheme"]).toBe(mode);
    expect(variables["--app-text"]).toBe(palette.text.primary);
    expect(variables["--app-background"]).toBe(palette.background.default);
    expect(variables["--app-paper"]).toBe(palette.background.paper);
    expect(variables["--app-focus"]).toBe(palette.secondary.main);
    expect(variables["--app-primary"]).toBe(palette.primary.main);
    expect(variables["--app-outline"]).toBe(dark ? palette.grey[700] : palette.grey[400]);
    expect(variables["--app-raised"]).toBe(dark ? palette.grey[800] : palette.grey[300]);
    expect(variables["--app-shadow-raised"]).toBe(theme.shadows[2]);
    expect(variables["--app-header"]).toBe(dark ? palette.background.paper : palette.primary.main);
    expect(variables["--app-error-filled"]).toBe(dark ? palette.error.dark : palette.error.main);
  });

  it.each([
    ["light", false],
    ["dark", true],
  ] as const)("follow the system's %s scheme in what is built with MUI", (mode, dark) => {
    prefersDark(dark);
    render(
      <MuiTheme>
        <ThemeMode />
      </MuiTheme>,
    );
    expect(screen.getByText(`${mode} ${themeFor(mode).palette.primary.main}`)).toBeInTheDocument();
  });
});
