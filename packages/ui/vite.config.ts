import { defineConfig } from "vite";

/**
 * The admin UI's build: a static single-page app served by the router under `/ui/` (so every asset URL starts
 * with it), with no inline script or style, so that the router's Content-Security-Policy can forbid both.
 */
export default defineConfig({
  base: "/ui/",
  oxc: { jsx: { runtime: "automatic", importSource: "preact" } },
  build: {
    outDir: "dist",
    emptyOutDir: true,
    // Inline assets would need `data:` URLs in the policy: keep every asset a file of its own.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    sourcemap: false,
    target: "es2022",
  },
});
