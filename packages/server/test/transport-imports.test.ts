import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const src = join(dirname(fileURLToPath(import.meta.url)), "..", "src");

/**
 * Packages that name a wire: the concrete transports, the Wanaku contract's codec and its generated messages.
 * The server reaches services through `@trestle/core`'s neutral types; only the composition root picks wires.
 */
const WIRE_PACKAGE =
  /from\s+["'](@trestle\/transport-[\w-]+|@trestle\/wanaku|@trestle\/proto)(\/[^"']*)?["']/g;

/**
 * Where naming a wire is the point: the composition root's modules that build the transports and start the
 * forwards. The forwards module (`forwards/`) gets what it needs of the MCP transport (watching an upstream,
 * addressing its tools) injected from there.
 */
const ALLOWED = [/^root\/transports\.ts$/, /^root\/forwards\.ts$/];

function wireImports(): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(src, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !entry.name.endsWith(".ts")) continue;
    const file = relative(src, join(entry.parentPath, entry.name)).replaceAll("\\", "/");
    if (ALLOWED.some((allowed) => allowed.test(file))) continue;
    for (const match of readFileSync(join(src, file), "utf8").matchAll(WIRE_PACKAGE)) {
      found.push(`${file}: ${match[1]}`);
    }
  }
  return found;
}

describe("the server names no wire outside its composition root", () => {
  it("imports no concrete transport, codec or protobuf message outside the root's transports and forwards modules", () => {
    expect(wireImports()).toEqual([]);
  });

  it("would notice one", () => {
    const planted =
      'import { createGrpcTransport } from "@trestle/transport-grpc";\nimport type { X } from "@trestle/proto/gen";';
    expect([...planted.matchAll(WIRE_PACKAGE)].map((m) => m[1])).toEqual([
      "@trestle/transport-grpc",
      "@trestle/proto",
    ]);
  });
});
