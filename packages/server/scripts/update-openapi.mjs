#!/usr/bin/env node
// Rewrites openapi.json, the management API's OpenAPI document, from the operations' schemas (run after `pnpm build`).
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { managementApiDocument } from "../dist/index.js";

writeFileSync(
  join(import.meta.dirname, "..", "openapi.json"),
  `${JSON.stringify(managementApiDocument(), null, 2)}\n`,
);
