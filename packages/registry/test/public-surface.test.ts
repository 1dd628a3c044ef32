import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const INDEX = join(dirname(fileURLToPath(import.meta.url)), "..", "src", "index.ts");

/** The names a module exports (values and types), and whether it re-exports a whole module (`export *`). */
function exportedNames(source: string): { names: string[]; exportsAll: boolean } {
  const file = ts.createSourceFile("index.ts", source, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const names: string[] = [];
  let exportsAll = false;
  for (const statement of file.statements) {
    if (ts.isExportDeclaration(statement)) {
      const clause = statement.exportClause;
      if (clause === undefined || ts.isNamespaceExport(clause)) exportsAll = true;
      else for (const element of clause.elements) names.push(element.name.text);
    } else if (
      (ts.canHaveModifiers(statement) &&
        ts.getModifiers(statement)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)) ??
      false
    ) {
      const name = (statement as { name?: ts.Identifier }).name;
      if (name) names.push(name.text);
      else exportsAll = true;
    }
  }
  return { names, exportsAll };
}

/** What belongs to the server's fronts, which own their state: no name of the registry's face may hold one. */
const FRONT_STATE = /A2a|McpTask|McpSession/;

describe("the registry's public face", () => {
  const { names, exportsAll } = exportedNames(readFileSync(INDEX, "utf8"));

  it("exports no type or value of a front's state (tasks, sessions): the server owns those", () => {
    expect(exportsAll).toBe(false);
    expect(names.filter((name) => FRONT_STATE.test(name))).toEqual([]);
  });

  it("exports the SQL surface another owner of state works with", () => {
    expect(names).toEqual(
      expect.arrayContaining([
        "Store",
        "openStore",
        "applyMigrations",
        "Migration",
        "MigrationOptions",
        "SqlClient",
        "SqlExecutor",
        "StoreSqlClient",
      ]),
    );
  });

  it("would see a front's type among the exports", () => {
    const planted = exportedNames(
      'export type { Store, StoredA2aTask } from "./store.js";\nexport * from "./x.js";',
    );
    expect(planted.names.filter((name) => FRONT_STATE.test(name))).toEqual(["StoredA2aTask"]);
    expect(planted.exportsAll).toBe(true);
  });
});
