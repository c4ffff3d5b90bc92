import { type ComponentType, type LazyExoticComponent, lazy } from "react";

const loadMuiTheme = () => import("../app/mui-theme");

/**
 * React.lazy for a screen or dialog built with MUI: its module and MUI's theme (app/mui-theme) load
 * together when it is first wanted, and it renders inside the theme. The signed-in feed is plain
 * elements, so MUI loads only with what the member opens (issue 31).
 *
 *   const SearchDialog = lazyWithTheme(() => import("./search-dialog").then((m) => m.SearchDialog));
 *
 * `preload()` starts both downloads ahead of the first render (a failure shows when it renders).
 */
export function lazyWithTheme<P extends object>(
  load: () => Promise<ComponentType<P>>,
): LazyExoticComponent<ComponentType<P>> & { preload: () => void } {
  const component = lazy(async () => {
    const [Component, { withMuiTheme }] = await Promise.all([load(), loadMuiTheme()]);
    return { default: withMuiTheme(Component) };
  });
  const preload = () => {
    Promise.all([load(), loadMuiTheme()]).catch(() => {});
  };
  return Object.assign(component, { preload });
}
