import { defineConfig } from "vitest/config";
import { sharedConfig } from "../../vitest.shared.js";

/**
 * The shared settings, with two changes. Vitest hands the SSR conditions to Node as `--conditions`, and the
 * shared list holds "import", which makes Node's `require()` pick the ESM build of dual packages: `pg`
 * then requires `pg-pool`'s ES module and fails ("Class extends value [object Module]"). Vite adds
 * "import"/"require" by itself, so the list here leaves it out. And one PostgreSQL server runs for the whole
 * run: the store suite runs against it as well as against PGlite.
 */
const conditions = ["@trestle/source", "module", "node", "default"];

export default defineConfig({
  ...sharedConfig,
  resolve: { ...sharedConfig.resolve, conditions },
  ssr: { ...sharedConfig.ssr, resolve: { ...sharedConfig.ssr?.resolve, conditions } },
  test: {
    ...sharedConfig.test,
    globalSetup: ["test/support/postgres-global-setup.ts"],
  },
});
