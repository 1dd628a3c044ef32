import { defineConfig } from "vitest/config";
import { sharedConfig } from "../../vitest.shared.js";

// The UI's logic is plain TypeScript: its tests run in Node, with the browser's pieces (storage, fetch) injected.
export default defineConfig({
  ...sharedConfig,
  oxc: { jsx: { runtime: "automatic", importSource: "preact" } },
  test: { ...sharedConfig.test, include: ["src/**/*.test.ts"] },
});
