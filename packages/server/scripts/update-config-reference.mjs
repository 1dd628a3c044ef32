#!/usr/bin/env node
// Rewrites the configuration reference in README.md from the config schema (run after `pnpm build`).
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { renderConfigReference } from "../dist/index.js";

const path = join(import.meta.dirname, "..", "README.md");
const readme = readFileSync(path, "utf8");
const start = "<!-- config-reference:start -->";
const end = "<!-- config-reference:end -->";
const before = readme.slice(0, readme.indexOf(start) + start.length);
const after = readme.slice(readme.indexOf(end));
writeFileSync(path, `${before}\n${renderConfigReference()}\n${after}`);
