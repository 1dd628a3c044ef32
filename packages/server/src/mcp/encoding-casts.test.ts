import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

/**
 * The encoding path: the encoders, and every module that builds a result for a client or hands one on. Each step
 * there is typed from a neutral result to the client's revision; a cast that silences the checker would hide a
 * shape the revision does not define.
 */
const ENCODING_PATH = [
  ...readdirSync(new URL("./wire/", import.meta.url))
    .filter((name) => name.endsWith(".ts") && !name.endsWith(".test.ts"))
    .map((name) => `wire/${name}`),
  "revision-notes.ts",
  "tool-methods.ts",
  "tool-listing.ts",
  "prompt-methods.ts",
  "resource-methods.ts",
  "namespace-server.ts",
  "list-pages.ts",
  "reusable-result.ts",
  "mcp-dispatcher.ts",
  "input-relay.ts",
  "tasks.ts",
];

/** Casts that turn the type checker off rather than state a type. */
const SILENCING_CASTS = /\bas\s+never\b|\bas\s+unknown\s+as\b/;

describe("the encoding path", () => {
  it("has no cast that silences the type checker", () => {
    expect(ENCODING_PATH.filter((path) => path.startsWith("wire/")).length).toBeGreaterThan(5);
    const found: string[] = [];
    for (const path of ENCODING_PATH) {
      const lines = readFileSync(new URL(`./${path}`, import.meta.url), "utf8").split("\n");
      lines.forEach((line, index) => {
        if (SILENCING_CASTS.test(line)) found.push(`${path}:${index + 1}: ${line.trim()}`);
      });
    }
    expect(found).toEqual([]);
  });
});
