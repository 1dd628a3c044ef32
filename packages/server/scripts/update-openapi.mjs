#!/usr/bin/env node
// Rewrites openapi.json, the management API's OpenAPI document, from the operations' schemas (run after `pnpm build`),
// in Biome's format so that `pnpm lint` passes on the committed copy (the drift test compares parsed JSON).
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { managementApiDocument } from "../dist/index.js";

const path = join(import.meta.dirname, "..", "openapi.json");
writeFileSync(path, `${JSON.stringify(managementApiDocument(), null, 2)}\n`);
const root = join(import.meta.dirname, "..", "..", "..");
const format = spawnSync(join(root, "node_modules", ".bin", "biome"), ["format", "--write", path], {
  cwd: root,
  stdio: "inherit",
});
process.exit(format.status ?? 1);
