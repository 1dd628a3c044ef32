import { basename } from "node:path";
import { defineConfig } from "vitest/config";

const conditions = ["@trestle/source", "module", "node", "default"];

/**
 * Vitest settings shared by every package: workspace packages resolve to their TypeScript sources (the
 * `@trestle/source` export condition), so unit tests never run against a stale build; each run also writes a
 * JSON report to `test-results/vitest.json`, which `scripts/test.mjs` sums into the closing line.
 */
export const sharedConfig = defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    testTimeout: 20_000,
    hookTimeout: 60_000,
    pool: "forks",
    reporters: ["default", "json"],
    outputFile: { json: "test-results/vitest.json" },
    name: basename(process.cwd()),
  },
});

// OpenTelemetry's "module" builds import without file extensions, which Node cannot load: a package whose tests
// load the router (and with it @opentelemetry/api) resolves without that condition (its CommonJS build then loads).
const routerConditions = ["@trestle/source", "node", "default"];

/** {@link sharedConfig} for the tests of packages that load the router: `@trestle/server` and the examples. */
export const routerTestConfig = defineConfig({
  ...sharedConfig,
  resolve: { conditions: routerConditions },
  ssr: { resolve: { conditions: routerConditions } },
});
