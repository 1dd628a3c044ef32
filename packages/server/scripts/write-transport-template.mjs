#!/usr/bin/env node
// Writes dist/cli/scaffold/transport-template.json, what `trestle new transport` builds a package from: the worked
// example's sources (examples/transport-http-json, proven by its own tests) and the repository's versions, read by
// the same function the CLI falls back on when it runs from the sources. Run from packages/server after tsc.
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import {
  collectTransportTemplate,
  serializeTransportTemplate,
} from "../dist/cli/scaffold/transport-template.js";

const packageDir = resolve(import.meta.dirname, "..");
const template = collectTransportTemplate(resolve(packageDir, "..", ".."));
const target = join(packageDir, "dist", "cli", "scaffold", "transport-template.json");
writeFileSync(target, serializeTransportTemplate(template));
console.log(
  `write-transport-template: ${Object.keys(template.files).length} files of ${template.source} -> ${target}`,
);
