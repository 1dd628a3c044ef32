#!/usr/bin/env node
// Copies @trestle/code-mode's prelude files next to the bundle (dist/preludes): the bundled code reads them
// relative to itself (dist/bundle/main.mjs → ../preludes/), where the unbundled package finds its own copy.
import { cpSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";

const require = createRequire(import.meta.url);
// The package main is dist/index.js: its preludes sit beside dist.
const codeMode = dirname(dirname(require.resolve("@trestle/code-mode")));
const target = resolve(process.cwd(), "dist", "preludes");
rmSync(target, { recursive: true, force: true });
cpSync(join(codeMode, "preludes"), target, { recursive: true });
