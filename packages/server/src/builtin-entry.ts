import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

/** The file a built-in service's process starts from, and why. */
export interface BuiltinEntry {
  /** Absolute path of the script to run. */
  path: string;
  /** Whether it is the package's one-file bundle (`dist/bundle/main.mjs`) rather than its `bin` script. */
  bundled: boolean;
  /** Why the bundle is not used, when it is not. */
  reason?: string;
}

/** `dist/bundle/inputs.json`, as `scripts/bundle-builtin.mjs` writes it. */
interface BundleInputs {
  entry: string;
  inputs: { path: string; sha256: string }[];
}

/**
 * Where a built-in service's process starts: the package's bundle (built by `scripts/bundle-builtin.mjs` in the
 * package's `build`), when that bundle was made from the files on disk; otherwise its `bin` script. One file
 * instead of a hundred-odd ES modules leaves an idle built-in about 3 MiB smaller, and its start no longer runs
 * Node's module loader hot enough to wake V8's optimizing compiler (4 MiB more, with the tiering
 * flags of `builtinNodeFlags`; docs/performance.md).
 *
 * A bundle is current when every input it lists that exists here still has the content it was bundled from: a
 * later `tsc` of the service or of a package it bundles (a watch build, a build of one package) makes it stale,
 * and the service then runs from its modules instead of from old code. Inputs missing here are not checked: an
 * installed package has its bundle but not the workspace's files it was made from. `options.digests` keeps the
 * inputs' digests between calls (pass one map for all the built-ins of a start: they share most of their inputs).
 */
export function builtinEntry(
  packageName: string,
  options: {
    /** Where the package is resolved from (a file URL); default: this module. */
    resolveFrom?: string;
    /** Input digests already computed, filled as inputs are read. */
    digests?: Map<string, string | undefined>;
  } = {},
): BuiltinEntry {
  const digests = options.digests ?? new Map<string, string | undefined>();
  const require = createRequire(options.resolveFrom ?? import.meta.url);
  const manifestPath = require.resolve(`${packageName}/package.json`);
  const packageDir = dirname(manifestPath);
  const manifest = JSON.parse(readFileSync(manifestPath, "utf8")) as { bin?: Record<string, string> };
  const bin = Object.values(manifest.bin ?? {})[0];
  if (!bin) throw new Error(`${packageName} declares no bin`);
  const binPath = join(packageDir, bin);

  const bundleDir = join(packageDir, "dist", "bundle");
  let listed: BundleInputs;
  try {
    listed = JSON.parse(readFileSync(join(bundleDir, "inputs.json"), "utf8")) as BundleInputs;
  } catch {
    return { path: binPath, bundled: false, reason: "it has no bundle (dist/bundle/inputs.json)" };
  }
  const entryPath = join(bundleDir, listed.entry);
  if (!existsSync(entryPath)) return { path: binPath, bundled: false, reason: `${entryPath} is missing` };
  for (const input of listed.inputs) {
    const inputPath = join(bundleDir, input.path);
    const digest = digestOf(inputPath, digests);
    if (digest === undefined) continue;
    if (digest !== input.sha256) {
      return {
        path: binPath,
        bundled: false,
        reason: `its bundle is older than ${inputPath} (run pnpm build)`,
      };
    }
  }
  return { path: entryPath, bundled: true };
}

/** A file's SHA-256 (hex), or undefined when it cannot be read; kept in `digests` (the built-ins share most inputs). */
function digestOf(path: string, digests: Map<string, string | undefined>): string | undefined {
  if (digests.has(path)) return digests.get(path);
  let digest: string | undefined;
  try {
    digest = createHash("sha256").update(readFileSync(path)).digest("hex");
  } catch {
    digest = undefined;
  }
  digests.set(path, digest);
  return digest;
}
