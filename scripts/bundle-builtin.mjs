#!/usr/bin/env node
// Bundles a built-in capability service (run from its package directory, after tsc): dist/main.js and everything
// it imports, node:* excepted, into dist/bundle/main.mjs (plus the chunks of its lazy imports), JSDoc dropped and
// names kept. The router starts its built-ins from this bundle: one file instead of about a hundred ES modules
// leaves a built-in about 3 MiB smaller, and its start no longer runs Node's module loader hot enough to wake
// the optimizing compiler (docs/performance.md, "Issue 19, sixth pass").
//
// dist/bundle/inputs.json lists every input file (relative to dist/bundle) with its SHA-256, so that the router
// can tell a bundle made from what is on disk from one a later `tsc` left behind (packages/server's
// builtin-entry.ts); files an installed package does not have are not checked there.
import { createHash } from "node:crypto";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { rolldown } from "rolldown";

const packageDir = process.cwd();
const bundleDir = resolve(packageDir, "dist", "bundle");
rmSync(bundleDir, { recursive: true, force: true });

const build = await rolldown({
  input: join(packageDir, "dist", "main.js"),
  platform: "node",
  external: [/^node:/],
  logLevel: "warn",
});
const { output } = await build.write({
  dir: bundleDir,
  format: "esm",
  entryFileNames: "main.mjs",
  chunkFileNames: "[name]-[hash].mjs",
  comments: { jsdoc: false, legal: true, annotation: false },
});
await build.close();

const ids = new Set();
for (const chunk of output) if (chunk.type === "chunk") for (const id of chunk.moduleIds) ids.add(id);
const inputs = [...ids]
  .filter((id) => !id.startsWith("\0"))
  .sort()
  .map((id) => ({
    path: relative(bundleDir, id),
    sha256: createHash("sha256").update(readFileSync(id)).digest("hex"),
  }));
writeFileSync(join(bundleDir, "inputs.json"), `${JSON.stringify({ entry: "main.mjs", inputs }, null, 1)}\n`);
