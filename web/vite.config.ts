import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";
import { VitePWA } from "vite-plugin-pwa";

const apiTarget = "http://127.0.0.1:3000";

export default defineConfig({
  plugins: [
    react(),
    VitePWA({
      // The app registers the worker itself (src/app/register-service-worker.ts): an hourly update
      // check, and a waiting worker is told to take over, then the page reloads once (SPEC 7).
      registerType: "prompt",
      injectRegister: false,
      filename: "sw.js",
      includeAssets: ["icon.svg"],
      manifest: {
        name: "Turnout",
        short_name: "Turnout",
        description: "Emergency pager alerts for Australian fire, rescue and SES members",
        start_url: "/",
        scope: "/",
        display: "standalone",
        theme_color: "#b71c1c",
        background_color: "#121212",
        icons: [{ src: "icon.svg", sizes: "any", type: "image/svg+xml", purpose: "any" }],
      },
      workbox: {
        globPatterns: ["**/*.{js,css,html,svg,png,webmanifest}"],
        navigateFallback: "/index.html",
        navigateFallbackDenylist: [/^\/api\//, /^\/socket\.io\//, /^\/feedback-uploads\//],
      },
    }),
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
    rolldownOptions: {
      output: {
        // Libraries change less often than the app: separate chunks stay cached across releases.
        codeSplitting: {
          groups: [
            { name: "react", test: /node_modules[\\/](react|react-dom|react-router|scheduler)[\\/]/ },
            { name: "mui", test: /node_modules[\\/](@mui|@emotion|@popperjs|stylis)[\\/]/ },
            { name: "vendor", test: /node_modules[\\/]/ },
          ],
        },
      },
    },
  },
});
