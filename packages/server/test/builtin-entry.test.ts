import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { builtinEntry } from "../src/builtin-entry.js";
import { builtinNodeFlags, defaultBuiltins, EXEC_NODE_FLAGS } from "../src/builtin-services.js";

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

/** A package `@demo/svc` in a scratch node_modules, with a bin and (optionally) a bundle made from its files. */
function scratchPackage(options: { bundle: boolean; inputs?: Record<string, string> }) {
  const root = mkdtempSync(join(tmpdir(), "trestle-builtin-entry-"));
  const packageDir = join(root, "node_modules", "@demo", "svc");
  mkdirSync(join(packageDir, "dist", "bundle"), { recursive: true });
  writeFileSync(
    join(packageDir, "package.json"),
    JSON.stringify({ name: "@demo/svc", bin: { svc: "./dist/main.js" } }),
  );
  writeFileSync(join(packageDir, "dist", "main.js"), "import './lib.js';\n");
  writeFileSync(join(packageDir, "dist", "lib.js"), "export const a = 1;\n");
  if (options.bundle) {
    writeFileSync(join(packageDir, "dist", "bundle", "main.mjs"), "const a = 1;\n");
    const inputs = Object.entries(options.inputs ?? { "../main.js": "import './lib.js';\n" }).map(
      ([path, content]) => ({ path, sha256: sha256(content) }),
    );
    writeFileSync(
      join(packageDir, "dist", "bundle", "inputs.json"),
      JSON.stringify({ entry: "main.mjs", inputs }),
    );
  }
  return { root, packageDir, from: pathToFileURL(join(root, "index.js")).href };
}

describe("builtinEntry: where a built-in service starts", () => {
  const made: string[] = [];
  afterEach(() => {
    for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  const scratch = (options: Parameters<typeof scratchPackage>[0]) => {
    const pkg = scratchPackage(options);
    made.push(pkg.root);
    return pkg;
  };

  it("starts from the bundle when every input it lists still has the content it was made from", () => {
    const { packageDir, from } = scratch({
      bundle: true,
      inputs: { "../main.js": "import './lib.js';\n", "../lib.js": "export const a = 1;\n" },
    });
    expect(builtinEntry("@demo/svc", { resolveFrom: from })).toEqual({
      path: join(packageDir, "dist", "bundle", "main.mjs"),
      bundled: true,
    });
  });

  it("starts from the bin script when an input changed after bundling, and says which", () => {
    const { packageDir, from } = scratch({
      bundle: true,
      inputs: { "../main.js": "import './lib.js';\n", "../lib.js": "export const a = 1;\n" },
    });
    writeFileSync(join(packageDir, "dist", "lib.js"), "export const a = 2;\n");
    const entry = builtinEntry("@demo/svc", { resolveFrom: from });
    expect(entry.path).toBe(join(packageDir, "dist", "main.js"));
    expect(entry.bundled).toBe(false);
    expect(entry.reason).toContain(join(packageDir, "dist", "lib.js"));
  });

  it("does not check inputs an installed package does not have", () => {
    const { packageDir, from } = scratch({
      bundle: true,
      inputs: { "../main.js": "import './lib.js';\n", "../../../../../workspace/only.js": "x" },
    });
    expect(builtinEntry("@demo/svc", { resolveFrom: from }).path).toBe(
      join(packageDir, "dist", "bundle", "main.mjs"),
    );
  });

  it("starts from the bin script when there is no bundle, or its entry is gone", () => {
    const none = scratch({ bundle: false });
    expect(builtinEntry("@demo/svc", { resolveFrom: none.from })).toMatchObject({
      path: join(none.packageDir, "dist", "main.js"),
      bundled: false,
      reason: expect.stringContaining("no bundle"),
    });
    const gone = scratch({ bundle: true });
    rmSync(join(gone.packageDir, "dist", "bundle", "main.mjs"));
    expect(builtinEntry("@demo/svc", { resolveFrom: gone.from })).toMatchObject({ bundled: false });
  });

  it("finds a current bundle for each of the workspace's built-ins after pnpm build", () => {
    for (const name of ["@trestle/service-http", "@trestle/service-file", "@trestle/service-exec"]) {
      const entry = builtinEntry(name);
      expect(entry, name).toMatchObject({ bundled: true });
      expect(entry.path.endsWith(join("dist", "bundle", "main.mjs"))).toBe(true);
    }
  });
});

describe("builtinNodeFlags", () => {
  it("names the tier-up threshold the way each V8 does (ticks on V8 11, invocation counts from V8 12)", () => {
    expect(builtinNodeFlags("11.3.244.8-node.33")).toContain("--ticks-before-optimization=10");
    const modern = builtinNodeFlags("12.4.254.21-node.33");
    expect(modern).toContain("--invocation-count-for-turbofan=9000");
    expect(modern.some((flag) => flag.startsWith("--ticks-before-optimization"))).toBe(false);
    expect(modern).toContain("--no-sparkplug");
  });

  it("leave a long loop in the interpreter (no on-stack replacement) while a function called often optimizes", () => {
    // One call that loops long, as a built-in's start decoding its protobuf descriptors, then a hot function.
    const program =
      "let s = 0; for (let i = 0; i < 3e7; i++) s += (i * 7) % 13; function hot(i) { return (i * 7) % 13; } for (let i = 0; i < 3e6; i++) s += hot(i); process.stdout.write(String(s > 0));";
    const run = spawnSync(process.execPath, [...builtinNodeFlags(), "--trace-opt", "-e", program], {
      encoding: "utf8",
    });
    expect(run.status).toBe(0);
    expect(run.stdout.endsWith("true")).toBe(true);
    expect(run.stdout).toMatch(/compiling method .*<JSFunction hot /);
    expect(run.stdout).not.toMatch(/\) OSR/);
  });

  it("are all accepted by the node that runs this (a flag V8 does not know stops node before it starts)", () => {
    const run = spawnSync(process.execPath, [...builtinNodeFlags(), "-e", "process.stdout.write('ran')"], {
      encoding: "utf8",
    });
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    expect(run.stdout).toBe("ran");
  });
});

describe("the code execution engine's own Node flags", () => {
  /** Runs a hot loop under `flags` with V8's optimization trace; the trace's lines. */
  function traceHotLoop(flags: readonly string[]): string {
    const program =
      "let s = 0; function f(i) { return (i * 7) % 13; } for (let i = 0; i < 3e7; i++) s += f(i); process.stdout.write(String(s > 0));";
    const run = spawnSync(process.execPath, [...flags, "--trace-opt", "-e", program], { encoding: "utf8" });
    expect(run.status).toBe(0);
    return run.stdout;
  }

  it("are the exec service's only, and keep it in V8's interpreter where the others optimize", () => {
    const flagsOf = (name: string) =>
      defaultBuiltins({ fileRoots: [] }).find((s) => s.name === name)?.nodeFlags;
    expect(flagsOf("exec")).toEqual(EXEC_NODE_FLAGS);
    expect(flagsOf("http")).toBeUndefined();
    expect(flagsOf("file")).toBeUndefined();
    expect(traceHotLoop(builtinNodeFlags())).toMatch(/completed (compiling|optimizing)/);
    const exec = traceHotLoop([...builtinNodeFlags(), ...EXEC_NODE_FLAGS]);
    expect(exec.endsWith("true")).toBe(true);
    expect(exec).not.toMatch(/completed (compiling|optimizing)/);
  });
});
