import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..", "..", "..");
const guide = readFileSync(join(root, "docs", "writing-a-transport.md"), "utf8");
/** Each code block the guide quotes, with the file it quotes: `<!-- excerpt: path -->` on the line before it. */
const excerpts = [...guide.matchAll(/<!-- excerpt: (\S+) -->\n```ts\n([\s\S]*?)\n```/g)].map(
  (m) => [m[1] as string, m[2] as string] as const,
);

/** `// …` on a line of its own marks lines left out: the parts around it must appear in that order. */
function appearsInOrder(text: string, excerpt: string): boolean {
  let from = 0;
  for (const part of excerpt.split(/\n[ \t]*\/\/ …\n/)) {
    const at = text.indexOf(part, from);
    if (at < 0) return false;
    from = at + part.length;
  }
  return true;
}

describe("docs/writing-a-transport.md quotes this package as it is", () => {
  it("quotes the wire, both ends, the plugin entry and both tests", () => {
    expect(new Set(excerpts.map(([file]) => file))).toEqual(
      new Set([
        "examples/transport-http-json/src/wire.ts",
        "examples/transport-http-json/src/http-json-capability-server.ts",
        "examples/transport-http-json/src/http-json-transport.ts",
        "examples/transport-http-json/src/plugin.ts",
        "examples/transport-http-json/test/transport-contract.test.ts",
        "examples/transport-http-json/test/router.test.ts",
      ]),
    );
  });

  it.each(excerpts.map(([file, code], i) => [i + 1, file, code]))(
    "excerpt %i appears verbatim in %s",
    (_, file, code) => {
      expect(appearsInOrder(readFileSync(join(root, file), "utf8"), code)).toBe(true);
    },
  );

  it("notices an excerpt that no longer matches", () => {
    const text = readFileSync(join(root, "examples/transport-http-json/src/wire.ts"), "utf8");
    expect(appearsInOrder(text, 'export const NDJSON = "application/json";')).toBe(false);
    expect(appearsInOrder(text, "export type ReplyLine\n// …\nexport const CALL_PATHS")).toBe(false);
  });
});
