import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const repo = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

/** The longest a source file may be: past it, a file holds more than one job. */
const MAX_FILE_LINES = 600;

/** The longest the composition root may be: it lists modules, it does not build them. */
const MAX_CREATE_ROUTER_LINES = 250;

/** Code `buf generate` writes: its length is the contract's, not ours. */
const GENERATED = [/^packages\/proto\/src\/gen\//];

/** Whether a file is source: TypeScript under a package's `src`, neither a test, a declaration nor generated. */
function isSource(file: string): boolean {
  if (!file.endsWith(".ts") || file.endsWith(".test.ts") || file.endsWith(".d.ts")) return false;
  return !GENERATED.some((generated) => generated.test(file));
}

/** Every source file of every workspace package (packages and examples), relative to the repository. */
function sourceFiles(): string[] {
  const files: string[] = [];
  for (const folder of ["packages", "examples"]) {
    const root = join(repo, folder);
    if (!existsSync(root)) continue;
    for (const name of readdirSync(root)) {
      const src = join(root, name, "src");
      if (!existsSync(src)) continue;
      for (const entry of readdirSync(src, { withFileTypes: true, recursive: true })) {
        if (!entry.isFile()) continue;
        const file = relative(repo, join(entry.parentPath, entry.name)).replaceAll("\\", "/");
        if (file.split("/").includes("node_modules")) continue;
        if (isSource(file)) files.push(file);
      }
    }
  }
  return files.sort();
}

/** The number of lines of a text, as `wc -l` counts them. */
function lineCount(text: string): number {
  return text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
}

/** Each file over `max` lines, as "path: N lines". */
function overLong(files: ReadonlyMap<string, string>, max: number): string[] {
  const found: string[] = [];
  for (const [file, text] of files) {
    const lines = lineCount(text);
    if (lines > max) found.push(`${file}: ${lines} lines`);
  }
  return found;
}

/** The lines of a top-level function, from its `function` line to the first `}` at column 0; undefined if absent. */
function functionLength(text: string, name: string): number | undefined {
  const lines = text.split("\n");
  const start = lines.findIndex((line) => new RegExp(`^export (async )?function ${name}\\b`).test(line));
  if (start < 0) return undefined;
  const end = lines.findIndex((line, index) => index > start && line === "}");
  return end < 0 ? undefined : end - start + 1;
}

describe("source files stay small", () => {
  it(`holds no source file over ${MAX_FILE_LINES} lines`, () => {
    const files = new Map(sourceFiles().map((file) => [file, readFileSync(join(repo, file), "utf8")]));
    expect(files.size).toBeGreaterThan(100);
    expect(overLong(files, MAX_FILE_LINES)).toEqual([]);
  });

  it(`keeps createRouter within ${MAX_CREATE_ROUTER_LINES} lines`, () => {
    const text = readFileSync(join(repo, "packages/server/src/router.ts"), "utf8");
    const length = functionLength(text, "createRouter");
    expect(length, "createRouter in packages/server/src/router.ts").toBeDefined();
    expect(length, `createRouter in packages/server/src/router.ts is ${length} lines`).toBeLessThanOrEqual(
      MAX_CREATE_ROUTER_LINES,
    );
  });

  it("would notice a long file and a long function", () => {
    const long = `${"x\n".repeat(MAX_FILE_LINES + 1)}`;
    expect(overLong(new Map([["packages/x/src/long.ts", long]]), MAX_FILE_LINES)).toEqual([
      `packages/x/src/long.ts: ${MAX_FILE_LINES + 1} lines`,
    ]);
    expect(
      overLong(new Map([["packages/x/src/ok.ts", "x\n".repeat(MAX_FILE_LINES)]]), MAX_FILE_LINES),
    ).toEqual([]);
    const router = `export async function createRouter() {\n${"  step();\n".repeat(10)}}\n`;
    expect(functionLength(router, "createRouter")).toBe(12);
    expect(isSource("packages/proto/src/gen/ai/x_pb.ts")).toBe(false);
    expect(isSource("packages/core/src/errors.test.ts")).toBe(false);
    expect(isSource("packages/core/src/errors.ts")).toBe(true);
  });
});
