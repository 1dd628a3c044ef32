#!/usr/bin/env node
// Writes the configuration reference into docs/deploy.md, between the same markers the server README uses, from
// the schema that validates the configuration (packages/server's renderConfigReference), so the deployment guide
// cannot drift from the code. Needs the server built (`pnpm build`).
//
//   node scripts/update-deploy-docs.mjs           rewrites docs/deploy.md
//   node scripts/update-deploy-docs.mjs --check   exits 1, changing nothing, when docs/deploy.md is stale
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const root = join(import.meta.dirname, "..");
const docPath = join(root, "docs", "deploy.md");
const START = "<!-- config-reference:start -->";
const END = "<!-- config-reference:end -->";

let renderConfigReference;
try {
  ({ renderConfigReference } = await import(
    pathToFileURL(join(root, "packages", "server", "dist", "index.js")).href
  ));
} catch (error) {
  console.error(`Cannot load packages/server/dist/index.js (run 'pnpm build' first): ${error.message}`);
  process.exit(1);
}

const doc = readFileSync(docPath, "utf8");
const startAt = doc.indexOf(START);
const endAt = doc.indexOf(END);
if (startAt < 0 || endAt < startAt) {
  console.error(`docs/deploy.md must hold ${START} followed by ${END}`);
  process.exit(1);
}
const next = `${doc.slice(0, startAt + START.length)}\n${renderConfigReference()}\n${doc.slice(endAt)}`;

if (process.argv.includes("--check")) {
  if (next !== doc) {
    console.error(
      "docs/deploy.md: the configuration reference differs from the config schema; run 'node scripts/update-deploy-docs.mjs' and commit",
    );
    process.exit(1);
  }
  console.log("docs/deploy.md: the configuration reference matches the config schema");
} else if (next !== doc) {
  writeFileSync(docPath, next);
  console.log("docs/deploy.md: configuration reference updated");
} else {
  console.log("docs/deploy.md: configuration reference already up to date");
}
