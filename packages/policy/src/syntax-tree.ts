import type { parse } from "@bufbuild/cel";

/** A node of a parsed CEL expression (cel.expr.Expr). */
export type CelExpr = NonNullable<ReturnType<typeof parse>["expr"]>;

/** A name an expression uses, with its offset in the source. */
export interface NameUse {
  name: string;
  offset: number;
}

/** What an expression refers to, read from its syntax tree. */
export interface ExpressionReferences {
  /** Variables read that no comprehension in the expression binds (`principal`, `arguments`, …). */
  variables: NameUse[];
  /**
   * Functions called: `name` for a global function or a method (`startsWith`), and `qualified` when the
   * target is a dotted name that could also be a namespaced function (`math.greatest`).
   */
  functions: (NameUse & { qualified?: string })[];
}

// Operators the planner evaluates itself; they are not looked up as functions.
const PLANNER_OPERATORS = new Set([
  "_?_:_",
  "_[_]",
  "_&&_",
  "_||_",
  "@not_strictly_false",
  "__not_strictly_false__",
  "_[?_]",
  "_?._",
]);

/**
 * Lists the free variables and the functions of a parsed expression. Comprehension variables (`g` in
 * `principal.groups.exists(g, g == "x")`, the accumulator) shadow outer names inside the comprehension only,
 * so `[1].exists(arguments, arguments > 0)` does not read the `arguments` variable.
 */
export function expressionReferences(
  expr: CelExpr,
  positions: Readonly<Record<string, number>>,
): ExpressionReferences {
  const references: ExpressionReferences = { variables: [], functions: [] };
  const offset = (node: CelExpr) => positions[String(node.id)] ?? 0;

  function visit(node: CelExpr | undefined, bound: ReadonlySet<string>): void {
    if (node === undefined) return;
    const kind = node.exprKind;
    switch (kind.case) {
      case "identExpr":
        if (!bound.has(kind.value.name))
          references.variables.push({ name: kind.value.name, offset: offset(node) });
        return;
      case "selectExpr":
        visit(kind.value.operand, bound);
        return;
      case "callExpr": {
        const call = kind.value;
        if (!PLANNER_OPERATORS.has(call.function)) {
          const target = call.target === undefined ? undefined : dottedName(call.target, bound);
          references.functions.push({
            name: call.function,
            offset: offset(node),
            ...(target !== undefined ? { qualified: `${target}.${call.function}` } : {}),
          });
        }
        visit(call.target, bound);
        for (const arg of call.args) visit(arg, bound);
        return;
      }
      case "listExpr":
        for (const element of kind.value.elements) visit(element, bound);
        return;
      case "structExpr":
        for (const entry of kind.value.entries) {
          if (entry.keyKind.case === "mapKey") visit(entry.keyKind.value, bound);
          visit(entry.value, bound);
        }
        return;
      case "comprehensionExpr": {
        const c = kind.value;
        visit(c.iterRange, bound);
        visit(c.accuInit, bound);
        const inLoop = new Set([...bound, c.iterVar, c.accuVar, ...(c.iterVar2 ? [c.iterVar2] : [])]);
        visit(c.loopCondition, inLoop);
        visit(c.loopStep, inLoop);
        visit(c.result, new Set([...bound, c.accuVar]));
        return;
      }
      default:
        return;
    }
  }

  visit(expr, new Set());
  return references;
}

/** `a.b.c` when `node` is a chain of selections on a free identifier, else undefined. */
function dottedName(node: CelExpr, bound: ReadonlySet<string>): string | undefined {
  const kind = node.exprKind;
  if (kind.case === "identExpr") return bound.has(kind.value.name) ? undefined : kind.value.name;
  if (kind.case === "selectExpr" && !kind.value.testOnly && kind.value.operand !== undefined) {
    const parent = dottedName(kind.value.operand, bound);
    return parent === undefined ? undefined : `${parent}.${kind.value.field}`;
  }
  return undefined;
}

/** The 1-based line and column of `offset` in `source`. */
export function lineAndColumn(source: string, offset: number): { line: number; column: number } {
  const before = source.slice(0, offset);
  const line = before.split("\n").length;
  return { line, column: offset - before.lastIndexOf("\n") };
}
