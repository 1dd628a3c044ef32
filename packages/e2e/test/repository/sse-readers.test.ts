import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

const repoRoot = join(import.meta.dirname, "..", "..", "..", "..");
const thisFile = relative(repoRoot, import.meta.filename);

/** Where the repository's own code lives: every package, every example, the root scripts. */
const ROOTS = ["packages", "examples", "scripts"];
const CODE = /\.(?:[cm]?[jt]s|tsx)$/;
const SKIPPED_DIRECTORIES = new Set(["node_modules", "dist", "test-results", ".turbo"]);

function codeFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) return SKIPPED_DIRECTORIES.has(entry.name) ? [] : codeFiles(full);
    return CODE.test(entry.name) ? [full] : [];
  });
}

/** A test of one line's field: `line.startsWith("data:")`, `=== "data:"`, a `/^data: (.*)$/m` pattern, … */
const DATA_FIELD_TEST =
  /(?:startsWith|indexOf)\(\s*["'`]data:|(?:===|!==)\s*["'`]data: ?["'`]|["'`]data: ?["'`]\s*(?:===|!==)|\/\^\s*data\b/;
/** A body cut into lines or events by hand: `split("\n")`, `split(/\r?\n/)`, `indexOf("\n\n")`, a multiline regex. */
const LINE_SPLIT =
  /split\(\s*(?:["'`](?:\\r)?\\n|\/\\r\??\\n|\/\\n|\/\\r\\n)|(?:indexOf|search)\(\s*(?:["'`]\\n|\/\\r\??\\n)|\/[a-z]*m[a-z]*\.(?:exec|test)\(|matchAll\(\s*\/[^/\n]*\/[a-z]*m/;

/** Whether `source` reads SSE `data:` lines by hand rather than through `eventsource-parser`. */
function readsDataLinesByHand(source: string): boolean {
  return DATA_FIELD_TEST.test(source) && LINE_SPLIT.test(source);
}

/**
 * One SSE reader: every `text/event-stream` body the repository reads (clients, transports, the benchmark, tests,
 * examples, scripts) goes through `eventsource-parser`, which handles what hand-written readers got wrong by turns:
 * `\r` and `\r\n` line ends split across chunks, multi-line data, ids, `retry:`, comments, and large events
 * without quadratic buffering.
 */
describe("Server-Sent Events are read by eventsource-parser only", () => {
  it("finds no hand-written `data:` line parser in packages, examples or scripts", () => {
    const offenders = ROOTS.flatMap((root) => codeFiles(join(repoRoot, root)))
      .map((file) => relative(repoRoot, file))
      .filter((file) => file !== thisFile)
      .filter((file) => readsDataLinesByHand(readFileSync(join(repoRoot, file), "utf8")));
    expect(offenders).toEqual([]);
  });

  it("recognises the shapes hand-written readers took, and leaves writers and eventsource-parser alone", () => {
    const handWritten = [
      'for (const line of text.split("\\n")) if (line.startsWith("data:")) out.push(line.slice(5));',
      'const lines = buffer.split(/\\r?\\n/); for (const l of lines) { if (l.indexOf("data:") === 0) f(l); }',
      'let end = buffer.indexOf("\\n\\n"); const data = [...frame.matchAll(/^data: (.*)$/gm)].map((m) => m[1]);',
      'const field = line.slice(0, 5); buffer.split("\\n"); if (field === "data:") take(line);',
    ];
    const notReaders = [
      // The SSE writer: data lines are written, not read.
      'for (const line of data.split("\\n")) frame += `data: $' + "{line}\\n`;",
      // A test that looks at the raw wire.
      'expect(text.split("\\n\\n")).toHaveLength(3); expect(text).toContain("data: end\\n\\n");',
      // The reader as it should be.
      "const parser = createParser({ onEvent: (e) => events.push(e.data) }); parser.feed(chunk);",
    ];
    expect(handWritten.filter((source) => !readsDataLinesByHand(source))).toEqual([]);
    expect(notReaders.filter(readsDataLinesByHand)).toEqual([]);
  });
});
