import { render } from "@testing-library/react";
import { AppProviders, createQueryClient } from "./providers";
import { themeFor } from "./theme";

/** The system's colour scheme as matchMedia answers it. */
function prefersDark(dark: boolean) {
  const original = window.matchMedia;
  vi.spyOn(window, "matchMedia").mockImplementation((query: string) => ({
    ...original(query),
    matches: query === "(prefers-color-scheme: dark)" ? dark : original(query).matches,
  }));
}

describe("the app's providers", () => {
  const root = () => document.documentElement.style;

  it.each([
    ["light", false],
    ["dark", true],
  ] as const)("give the static stylesheets the %s theme's colours and colour scheme", (mode, dark) => {
    prefersDark(dark);
    render(
      <AppProviders queryClient={createQueryClient()}>
        <p>page</p>
      </AppProviders>,
    );
    const { palette } = themeFor(mode);
    expect(root().getPropertyValue("color-scheme")).toBe(mode);
    expect(root().getPropertyValue("--app-text")).toBe(palette.text.primary);
    expect(root().getPropertyValue("--app-background")).toBe(palette.background.default);
    expect(root().getPropertyValue("--app-paper")).toBe(palette.background.paper);
    expect(root().getPropertyValue("--app-focus")).toBe(palette.secondary.main);
    expect(root().getPropertyValue("--app-warning")).toBe(palette.warning.main);
    expect(root().getPropertyValue("--app-outline")).toBe(dark ? palette.grey[700] : palette.grey[400]);
    expect(root().getPropertyValue("--app-success")).toBe(palette.success.main);
    expect(root().getPropertyValue("--app-raised")).toBe(dark ? palette.grey[800] : palette.grey[300]);
    expect(root().getPropertyValue("--app-shadow-raised")).toBe(themeFor(mode).shadows[2]);
    expect(root().getPropertyValue("--app-placeholder")).toBe(
      dark ? "rgba(255, 255, 255, 0.13)" : "rgba(0, 0, 0, 0.11)",
    );
  });
});
