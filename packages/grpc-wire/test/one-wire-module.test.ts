import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const repository = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const WIRE_PACKAGE = "@trestle/grpc-wire";

/** The production sources (no tests) under `dir`, recursively. */
function sources(dir: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    const name = entry.name;
    if (!entry.isFile() || !/\.(ts|mts|js|mjs)$/.test(name) || name.endsWith(".d.ts")) continue;
    if (/\.test\.[mc]?[jt]s$/.test(name)) continue;
    found.push(join(entry.parentPath, name));
  }
  return found;
}

/** Every package and example of the repository with a `src` directory: name, directory, dependencies. */
function workspacePackages(): { name: string; dir: string; dependencies: string[] }[] {
  const found = [];
  for (const parent of ["packages", "examples"]) {
    for (const entry of readdirSync(join(repository, parent), { withFileTypes: true })) {
      if (!entry.isDirectory()) continue;
      const dir = join(repository, parent, entry.name);
      let manifest: { name?: string; dependencies?: Record<string, string> };
      try {
        manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
        readdirSync(join(dir, "src"));
      } catch {
        continue;
      }
      found.push({
        name: manifest.name ?? entry.name,
        dir,
        dependencies: Object.keys(manifest.dependencies ?? {}),
      });
    }
  }
  return found;
}

/**
 * Where the string literals (and template parts) of a source name one of `headers` (in any case), as
 * `name:line header`: code only, never comments.
 */
function headerLiterals(name: string, text: string, headers: readonly string[]): string[] {
  const source = ts.createSourceFile(name, text, ts.ScriptTarget.Latest, false);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isStringLiteralLike(node) || ts.isTemplateLiteralToken(node)) {
      for (const header of headers) {
        if (node.text.toLowerCase().includes(header)) {
          const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
          found.push(`${name}:${line + 1} ${header}`);
        }
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function scan(packages: { dir: string }[], headers: readonly string[]): string[] {
  return packages.flatMap(({ dir }) =>
    sources(join(dir, "src")).flatMap((file) =>
      headerLiterals(relative(repository, file), readFileSync(file, "utf8"), headers),
    ),
  );
}

/**
 * One implementation per wire concern: gRPC's wire (the deadline header, the status and its message, framing)
 * lives in @trestle/grpc-wire, and nothing else restates it.
 */
describe("gRPC's wire is written once, in @trestle/grpc-wire", () => {
  const packages = workspacePackages();
  const others = packages.filter(({ name }) => name !== WIRE_PACKAGE);

  it("is the only package whose sources name grpc-timeout: no other writes or parses a deadline itself", () => {
    expect(others.length).toBeGreaterThan(10);
    expect(scan(others, ["grpc-timeout"])).toEqual([]);
  });

  it("leaves grpc-status and grpc-message to it in every package that speaks gRPC through it", () => {
    const speakers = others.filter(({ dependencies }) => dependencies.includes(WIRE_PACKAGE));
    expect(speakers.map(({ name }) => name).sort()).toEqual(
      expect.arrayContaining(["@trestle/capability", "@trestle/transport-grpc"]),
    );
    expect(scan(speakers, ["grpc-status", "grpc-message"])).toEqual([]);
  });

  it("would notice a package that reads or writes the header, in any kind of string, but not in a comment", () => {
    const planted = [
      "// grpc-timeout in a comment, and /* grpc-timeout */ in another",
      'const a = headers["grpc-timeout"];',
      // biome-ignore-start lint/suspicious/noTemplateCurlyInString: template literals in the planted source
      "headers['GRPC-TIMEOUT'] = `${ms}m`;",
      "const c = `x-${y}-grpc-timeout`;",
      // biome-ignore-end lint/suspicious/noTemplateCurlyInString: template literals in the planted source
      'const d = { "grpc-status": "0" };',
    ].join("\n");
    expect(headerLiterals("planted.ts", planted, ["grpc-timeout", "grpc-status"])).toEqual([
      "planted.ts:2 grpc-timeout",
      "planted.ts:3 grpc-timeout",
      "planted.ts:4 grpc-timeout",
      "planted.ts:5 grpc-status",
    ]);
    expect(
      scan([{ dir: join(repository, "packages", "grpc-wire") }], ["grpc-timeout"]).length,
    ).toBeGreaterThan(0);
  });
});
