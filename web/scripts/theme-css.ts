// Writes the themes' colours (app/theme.ts) into app/baseline.css, between its theme markers:
//   npx tsx web/scripts/theme-css.ts
// Run after changing a colour in theme.ts; web/src/app/theme.test.ts fails until it is.
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { THEME_CSS_END, THEME_CSS_START, themeStylesheet } from "../src/app/theme";

const file = fileURLToPath(new URL("../src/app/baseline.css", import.meta.url));
const css = readFileSync(file, "utf8");
const start = css.indexOf(THEME_CSS_START);
const end = css.indexOf(THEME_CSS_END);
const next =
  start >= 0 && end > start
    ? css.slice(0, start) + themeStylesheet() + css.slice(end + THEME_CSS_END.length)
    : `${css.trimEnd()}\n\n${themeStylesheet()}\n`;
writeFileSync(file, next);
// As the repository's formatter would write it (long values wrap), so the check stays clean.
execFileSync("npx", ["biome", "format", "--write", file], { stdio: "ignore" });
process.stdout.write("baseline.css: theme written\n");
