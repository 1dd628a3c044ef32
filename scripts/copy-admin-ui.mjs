#!/usr/bin/env node
// Copies the built admin UI (@trestle/ui's dist/, made by `vite build`) into the server package's dist/ui, run from
// packages/server after tsc: the router serves it at /ui, and `npm i -g @trestle/server` gets it with dist/. The UI
// is a devDependency of the server, so turbo builds it first.
import { cpSync, existsSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

const packageDir = process.cwd();
const require = createRequire(join(packageDir, "package.json"));
const source = join(dirname(require.resolve("@trestle/ui/package.json")), "dist");
const target = join(packageDir, "dist", "ui");
if (!existsSync(join(source, "index.html"))) {
  console.error(`copy-admin-ui: ${source} has no index.html: build @trestle/ui first (pnpm build does)`);
  process.exit(1);
}
rmSync(target, { recursive: true, force: true });
cpSync(source, target, { recursive: true });
console.log(`copy-admin-ui: ${source} -> ${target}`);
