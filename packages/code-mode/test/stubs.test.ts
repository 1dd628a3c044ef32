import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generateToolCatalog } from "@trestle/tool-search/testing";
import ts from "typescript";
import { afterAll, describe, expect, it } from "vitest";
import { type CodeModeTool, pythonStub, toolIdentifiers, typescriptDeclarations } from "../src/index.js";
import { CHILD_ENV, python3 } from "./support/interpreters.js";

const dir = mkdtempSync(join(tmpdir(), "code-mode-stubs-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Tools whose text tries to break out of comments and strings. */
const HOSTILE: CodeModeTool[] = [
  {
    name: "get-weather",
    title: "Weather",
    description: 'Forecast. */ declare const injected: number; /* """\nimport os; os.system("x")\n"""',
    inputSchema: {
      type: "object",
      properties: {
        city: { type: "string", description: "City */ declare const alsoInjected: 1; /*" },
        units: { type: "string", enum: ["metric", "imperial"] },
        "max-days": { type: "integer", description: 'ends with a quote"' },
        from: { type: "string" },
      },
      required: ["city"],
    },
    outputSchema: {
      type: "object",
      properties: { temperature: { type: "number" }, summary: { type: "string" } },
      required: ["temperature"],
    },
  },
  {
    name: "2fa.reset",
    description: "Back\\slash \\u0041 and a trailing backslash \\",
    inputSchema: { type: "object" },
  },
  { name: "class", description: "Line one\u2028line two\u0000end" },
];

function compile(files: Record<string, string>): string[] {
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  const program = ts.createProgram(
    Object.keys(files).map((name) => join(dir, name)),
    {
      strict: true,
      noEmit: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      lib: ["lib.es2022.d.ts"],
      types: [],
    },
  );
  return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
}

describe("typescriptDeclarations", () => {
  const catalog = generateToolCatalog({ count: 500 });
  const dts = typescriptDeclarations([...catalog, ...HOSTILE], { label: "namespace test" });
  const ids = toolIdentifiers([...catalog, ...HOSTILE].map((t) => t.name));

  it("compiles, and types a program's calls from the schemas", () => {
    const usage = [
      "export async function main(): Promise<void> {",
      '  const w = await tools.get_weather({ city: "Oslo", units: "metric", "max-days": 3, from: "x" });',
      "  const t: number = w.temperature;",
      '  const other: unknown = await tools.call("2fa.reset", {});',
      "  await tools._2fa_reset();",
      "  await tools.class_();",
      "  try { await tools.class_(); } catch (e) { if (e instanceof ToolError) console.log(e.tool, t, other); }",
      "}",
      "declare const console: { log(...a: unknown[]): void };",
    ].join("\n");
    expect(compile({ "tools.d.ts": dts, "usage.ts": usage })).toEqual([]);
  });

  it("rejects calls the schemas do not allow", () => {
    const wrong = [
      "export async function main(): Promise<void> {",
      '  await tools.get_weather({ units: "metric" });',
      '  await tools.get_weather({ city: "Oslo", units: "kelvin" });',
      "  await tools.no_such_tool({});",
      "  (await tools.get_weather({ city: 'x' })).injected;",
      "}",
    ].join("\n");
    const errors = compile({ "tools.d.ts": dts, "wrong.ts": wrong });
    expect(errors.some((e) => e.includes("'city' is missing"))).toBe(true);
    expect(errors.some((e) => e.includes('"kelvin"'))).toBe(true);
    expect(errors.some((e) => e.includes("no_such_tool"))).toBe(true);
    expect(errors.some((e) => e.includes("injected"))).toBe(true);
    expect(errors).toHaveLength(4);
  });

  it("declares exactly one method per tool plus call, and nothing the catalog text injected", () => {
    const source = ts.createSourceFile("tools.d.ts", dts, ts.ScriptTarget.ES2022, true);
    const topLevel = source.statements.map((s) =>
      ts.isVariableStatement(s)
        ? s.declarationList.declarations[0]?.name.getText()
        : (s as ts.ClassDeclaration).name?.text,
    );
    expect(topLevel).toEqual(["ToolError", "ToolResult", "tools"]);
    const tools = source.statements.find(ts.isVariableStatement)?.declarationList.declarations[0];
    if (!tools?.type || !ts.isTypeLiteralNode(tools.type))
      throw new Error("tools is not declared as an object type");
    const members = tools.type.members.map((m) => m.name?.getText());
    expect(members).toEqual([...[...ids.values()].sort(), "call"]);
    expect(dts).toContain('Tool "2fa.reset".');
    expect(dts).not.toContain("\u2028");
  });

  it("is the same text for the same tools in any order", () => {
    expect(typescriptDeclarations([...HOSTILE].reverse(), { label: "namespace test" })).toBe(
      typescriptDeclarations(HOSTILE, { label: "namespace test" }),
    );
  });
});

describe("pythonStub", () => {
  it("is valid Python whose only definitions are ToolError, ToolResult, Tools and tools", () => {
    const catalog = generateToolCatalog({ count: 500 });
    const stub = pythonStub([...catalog, ...HOSTILE]);
    writeFileSync(join(dir, "tools_stub.py"), stub);
    const inspect = [
      "import ast, json, sys",
      "tree = ast.parse(open(sys.argv[1], encoding='utf-8').read())",
      "top = [n.name if hasattr(n, 'name') else ast.unparse(n.targets[0] if isinstance(n, ast.Assign) else n.target)",
      "       for n in tree.body if not isinstance(n, (ast.ImportFrom, ast.Expr))]",
      "tools = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == 'Tools')",
      "methods = {f.name: {'kwonly': [a.arg for a in f.args.kwonlyargs], 'doc': ast.get_docstring(f),",
      "                    'body': [type(s).__name__ for s in f.body]} for f in tools.body}",
      "print(json.dumps({'top': top, 'methods': methods}))",
    ].join("\n");
    const out = JSON.parse(
      execFileSync(python3(), ["-c", inspect, join(dir, "tools_stub.py")], {
        encoding: "utf8",
        env: CHILD_ENV,
      }),
    );
    expect(out.top).toEqual(["ToolResult", "ToolError", "Tools", "tools"]);
    const ids = toolIdentifiers([...catalog, ...HOSTILE].map((t) => t.name));
    expect(Object.keys(out.methods).sort()).toEqual([...ids.values(), "call"].sort());
    const weather = out.methods.get_weather;
    expect(weather.kwonly).toEqual(["city", "units", "max_days", "from_"]);
    expect(weather.body).toEqual(["Expr", "Expr"]);
    expect(weather.doc).toContain('import os; os.system("x")');
    expect(weather.doc).toContain('max_days: ends with a quote" (sent as "max-days")');
    expect(out.methods._2fa_reset.doc).toContain("a trailing backslash \\");
    expect(stub).toContain(
      'def get_weather(self, *, city: str, units: Literal["metric", "imperial"] | None = None',
    );
    expect(stub).toContain(") -> dict[str, Any]:");
  });
});
