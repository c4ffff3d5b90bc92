import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import react from "@vitejs/plugin-react";
import { defineConfig, type Plugin } from "vite";
import { type ManifestOptions, VitePWA } from "vite-plugin-pwa";
import { noTestCode } from "./build/no-test-code";

const apiTarget = "http://127.0.0.1:3000";

/** Light theme colours (the dark theme-color is a media-query meta tag in index.html). */
const THEME_COLOR = "#b71c1c";
const BACKGROUND_COLOR = "#f5f5f5";

/** Sizes Android, Chrome, Edge, Windows and older iOS ask for, all from web/scripts/generate-icons.mjs. */
const ICON_SIZES = [48, 72, 96, 128, 144, 152, 192, 256, 384, 512];

const manifest: Partial<ManifestOptions> = {
  id: "/",
  name: "Turnout",
  short_name: "Turnout",
  description: "Emergency pager alerts for Australian fire, rescue and SES members",
  lang: "en-AU",
  dir: "ltr",
  start_url: "/",
  scope: "/",
  display: "standalone",
  theme_color: THEME_COLOR,
  background_color: BACKGROUND_COLOR,
  categories: ["utilities", "news"],
  icons: [
    ...ICON_SIZES.map((size) => ({
      src: `/icons/icon-${size}.png`,
      sizes: `${size}x${size}`,
      type: "image/png",
      purpose: "any",
    })),
    { src: "/icon.svg", sizes: "any", type: "image/svg+xml", purpose: "any" },
    ...[192, 512].map((size) => ({
      src: `/icons/maskable-icon-${size}.png`,
      sizes: `${size}x${size}`,
      type: "image/png",
      purpose: "maskable",
    })),
  ],
};

/**
 * Writes `.br` and `.gz` beside every text file of the build once, at build time, so the server
 * can send them as they are (@fastify/static `preCompressed`) instead of compressing per request.
 */
function precompress(): Plugin {
  let outDir = "dist";
  const compressible = /\.(js|css|html|svg|webmanifest|json)$/;
  const walk = (dir: string): string[] =>
    readdirSync(dir).flatMap((name) => {
      const file = path.join(dir, name);
      return statSync(file).isDirectory() ? walk(file) : [file];
    });
  return {
    name: "turnout-precompress",
    apply: "build",
    enforce: "post",
    configResolved(config) {
      outDir = path.resolve(config.root, config.build.outDir);
    },
    closeBundle: {
      order: "post",
      handler() {
        for (const file of walk(outDir)) {
          if (!compressible.test(file)) continue;
          const bytes = readFileSync(file);
          if (bytes.length < 1024) continue;
          writeFileSync(`${file}.gz`, gzipSync(bytes, { level: 9 }));
          writeFileSync(
            `${file}.br`,
            brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }),
          );
        }
      },
    },
  };
}

/**
 * The page's entry (src/main.tsx) holds no React, so that it runs as soon as it arrives and asks for the
 * first screen's code and data at once; it then imports src/app/start.tsx (React and the app). This
 * writes start's scripts and styles into index.html (modulepreload and stylesheet links), so the
 * browser fetches them beside the entry rather than after it has run: no round trip is added, and the
 * first screen's requests leave one sooner (issue 31).
 */
function preloadStart(): Plugin {
  return {
    name: "turnout-preload-start",
    apply: "build",
    transformIndexHtml: {
      order: "post",
      handler(html, ctx) {
        const bundle = ctx.bundle;
        if (!bundle) return [];
        const chunks = Object.values(bundle).filter((output) => output.type === "chunk");
        const start = chunks.find((chunk) => chunk.facadeModuleId?.endsWith("/src/app/start.tsx"));
        if (!start) throw new Error("preloadStart: no chunk for src/app/start.tsx");
        // What the page already loads (the entry and what Vite preloads for it).
        const already = new Set([...html.matchAll(/(?:src|href)="\/([^"]+)"/g)].map((match) => match[1]));
        const scripts = new Set<string>();
        const styles = new Set<string>();
        const visit = (fileName: string) => {
          const chunk = bundle[fileName];
          if (chunk?.type !== "chunk" || scripts.has(fileName)) return;
          scripts.add(fileName);
          for (const css of chunk.viteMetadata?.importedCss ?? []) styles.add(css);
          for (const imported of chunk.imports) visit(imported);
        };
        visit(start.fileName);
        return [
          ...[...styles].map((href) => ({
            tag: "link",
            attrs: { rel: "stylesheet", crossorigin: true, href: `/${href}` },
            injectTo: "head" as const,
          })),
          ...[...scripts]
            .filter((fileName) => !already.has(fileName))
            .map((href) => ({
              tag: "link",
              attrs: { rel: "modulepreload", crossorigin: true, href: `/${href}` },
              injectTo: "head" as const,
            })),
        ];
      },
    },
  };
}

export default defineConfig({
  plugins: [
    react(),
    VitePWA({
      // The app registers the worker itself (src/app/register-service-worker.ts): at load, an hourly
      // update check, a waiting worker told to take over, then one reload (SPEC 7).
      registerType: "prompt",
      injectRegister: false,
      filename: "sw.js",
      manifest,
      // The icons are fetched when the app is installed; precaching all of them would cost every
      // visitor ~60 kB for nothing.
      includeManifestIcons: false,
      workbox: {
        // The app shell only: HTML, scripts, styles and the SVG icon. No runtime caching at all, so
        // API answers are never served from the worker (offline alerts come from localStorage).
        globPatterns: ["**/*.{js,css,html,webmanifest}", "icon.svg"],
        navigateFallback: "/index.html",
        navigateFallbackDenylist: [/^\/api(\/|$)/, /^\/socket\.io(\/|$)/, /^\/feedback-uploads(\/|$)/],
        // The first visit is controlled (offline-ready) without a reload; the page reloads only when
        // an already controlling worker is replaced.
        clientsClaim: true,
        cleanupOutdatedCaches: true,
        // Push notifications and their taps (issue 15): a plain script beside the generated worker.
        importScripts: ["push-sw.js"],
      },
    }),
    preloadStart(),
    precompress(),
    // Test doubles and fixtures (src/testing, *.test.*) must never ship: the build fails if they do.
    noTestCode(),
  ],
  server: {
    proxy: {
      "/api": { target: apiTarget, changeOrigin: false },
      "/socket.io": { target: apiTarget, changeOrigin: false },
      "/feedback-uploads": { target: apiTarget, changeOrigin: false },
    },
  },
  build: {
    outDir: "dist",
    emptyOutDir: true,
    // Every browser the app supports preloads modules natively; the polyfill would be dead weight.
    modulePreload: { polyfill: false },
    rolldownOptions: {
      output: {
        // Libraries change less often than the app: separate chunks stay cached across releases.
        // `$initial` means "statically reachable from index.html" in the import graph before tree
        // shaking, so it is no proof that the first screen runs a module. A catch-all node_modules
        // group put zod in the first download this way (reachable through the domain barrel, used
        // only by lazy screens); the groups below name libraries the login screen really runs, and
        // the rest (zod, socket.io, virtual) stays in the lazily loaded chunks that use it.
        codeSplitting: {
          groups: [
            {
              name: "react",
              test: /node_modules[\\/](react|react-dom|scheduler|wouter|regexparam|use-sync-external-store)[\\/]/,
            },
            // MUI's styling engine and theme, for every screen built with MUI (all load when first
            // opened: the signed-in feed and its shell are plain elements, issue 31). Its components
            // split by the screens that use them.
            {
              name: "mui",
              test: /node_modules[\\/](@mui[\\/](system|styled-engine|private-theming|utils|material[\\/](styles|colors))|@emotion|stylis)[\\/]/,
            },
            {
              name: "query",
              test: /node_modules[\\/]@tanstack[\\/](query-core|react-query)[\\/]/,
            },
            // Not `$initial`: loaded with the first lazy screen that validates with it. The web writes
            // its schemas in zod's mini form (functions that tree-shake); zod's English messages,
            // which only forms show (app/zod-messages.ts), load with them.
            { name: "zod", test: /node_modules[\\/]zod[\\/](?!v4[\\/]locales[\\/])/ },
            { name: "zod-messages", test: /node_modules[\\/]zod[\\/]v4[\\/]locales[\\/]/ },
          ],
        },
      },
    },
  },
});
