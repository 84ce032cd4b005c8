import { defineConfig } from "vitest/config";
import { svelte } from "@sveltejs/vite-plugin-svelte";
import { svelteTesting } from "@testing-library/svelte/vite";

// Plain SPA built into ui/dist, which tauri.conf.json embeds (frontendDist).
export default defineConfig({
  // svelteTesting() acts only under Vitest: it resolves Svelte's browser build (components can
  // mount) and unmounts what a test rendered after each test.
  plugins: [svelte(), svelteTesting()],
  clearScreen: false,
  server: { port: 5173, strictPort: true },
  build: {
    outDir: "dist",
    emptyOutDir: true,
    target: "safari15",
    // No inline module preload polyfill: the CSP allows no inline script.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
  },
  test: {
    // Logic tests run in Node; component tests (src/lib/components/*.test.ts) opt into jsdom
    // with a `// @vitest-environment jsdom` first line.
    include: ["src/**/*.test.ts"],
  },
});
