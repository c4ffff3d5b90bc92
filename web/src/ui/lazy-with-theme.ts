import { type ComponentType, type LazyExoticComponent, lazy } from "react";

/**
 * React.lazy for a screen or dialog built with MUI: its module and MUI's theme (app/mui-theme) load
 * together when it is first wanted, and it renders inside the theme. The signed-in feed is plain
 * elements, so MUI loads only with what the member opens (issue 31).
 *
 *   const SearchDialog = lazyWithTheme(() => import("./search-dialog").then((m) => m.SearchDialog));
 */
export function lazyWithTheme<P extends object>(
  load: () => Promise<ComponentType<P>>,
): LazyExoticComponent<ComponentType<P>> {
  return lazy(async () => {
    const [Component, { withMuiTheme }] = await Promise.all([load(), import("../app/mui-theme")]);
    return { default: withMuiTheme(Component) };
  });
}
