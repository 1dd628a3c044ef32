import { defineConfig } from "vitest/config";
import { sharedConfig } from "../../vitest.shared.js";

// OpenTelemetry's "module" builds import without file extensions, which Node cannot load: resolve without that
// condition here (its CommonJS build then loads).
const conditions = ["@trestle/source", "node", "default"];

export default defineConfig({
  ...sharedConfig,
  resolve: { conditions },
  ssr: { resolve: { conditions } },
});
