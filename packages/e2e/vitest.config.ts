import { defineConfig } from "vitest/config";
import { sharedConfig } from "../../vitest.shared.js";

// Real processes on real ports: one file at a time keeps a 2-core machine from starving the timing checks.
export default defineConfig({
  ...sharedConfig,
  test: { ...sharedConfig.test, include: ["test/**/*.test.ts"], fileParallelism: false, testTimeout: 60_000 },
});
