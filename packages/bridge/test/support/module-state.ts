import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";

/**
 * The rule "no module-level mutable state", as a check over TypeScript sources (syntax only, no type checker, so
 * that it runs in a fraction of a second):
 *
 * 1. no module-level `let` or `var` (exported or not);
 * 2. a module-level `const` initialised with an array literal, an object literal or a `new` expression must be
 *    immutable as far as the compiler can tell: `as const`, `Object.freeze(…)`, or declared (or asserted) with a
 *    read-only type — `Readonly<…>`, `ReadonlyArray<…>`, `readonly T[]`, `ReadonlyMap<…>`, `ReadonlySet<…>` — so
 *    that no code can change it through that name. A few constructors whose instances hold nothing a caller can
 *    change (`TextEncoder`, `TextDecoder`, the `Intl` formatters) need no such type. A `WeakMap`, an
 *    `AsyncLocalStorage` or an `EventEmitter` has no read-only type: at module level it is always refused;
 * 3. the same for a class's static properties: each must be `readonly`, and a container in one read-only typed.
 *
 * What it does not see: a `const` initialised by a call (`const cache = createCache()`) and read-only types that
 * are shallow (`Readonly<{ list: string[] }>` still lets `list` change). A router in a process must share nothing
 * with another router in the same process: state lives in what the composition root creates.
 */
export interface ModuleStateFinding {
  /** The file, as given to {@link findModuleState}. */
  file: string;
  line: number;
  /** The binding (or `Class.property`). */
  name: string;
  /** Which part of the rule it breaks. */
  rule: string;
}

/** Constructors whose instances carry no state a caller can change. */
const STATELESS_CONSTRUCTORS: ReadonlySet<string> = new Set([
  "TextEncoder",
  "TextDecoder",
  "Intl.Collator",
  "Intl.DateTimeFormat",
  "Intl.ListFormat",
  "Intl.NumberFormat",
  "Intl.PluralRules",
  "Intl.RelativeTimeFormat",
  "Intl.Segmenter",
]);

const READONLY_TYPE_NAMES: ReadonlySet<string> = new Set([
  "Readonly",
  "ReadonlyArray",
  "ReadonlyMap",
  "ReadonlySet",
]);

function isReadonlyType(type: ts.TypeNode | undefined): boolean {
  if (type === undefined) return false;
  if (ts.isTypeOperatorNode(type)) return type.operator === ts.SyntaxKind.ReadonlyKeyword;
  return ts.isTypeReferenceNode(type) && READONLY_TYPE_NAMES.has(type.typeName.getText());
}

/** The initialiser without parentheses and type assertions, and whether an assertion made it read-only. */
function unwrap(initializer: ts.Expression): { expression: ts.Expression; readonly: boolean } {
  let expression = initializer;
  let readonly = false;
  for (;;) {
    if (
      ts.isParenthesizedExpression(expression) ||
      ts.isNonNullExpression(expression) ||
      ts.isSatisfiesExpression(expression)
    ) {
      expression = expression.expression;
    } else if (ts.isAsExpression(expression) || ts.isTypeAssertionExpression(expression)) {
      const type = expression.type;
      if ((ts.isTypeReferenceNode(type) && type.typeName.getText() === "const") || isReadonlyType(type))
        readonly = true;
      expression = expression.expression;
    } else {
      return { expression, readonly };
    }
  }
}

/** Why a module-level binding initialised with `initializer` and declared as `type` is mutable, if it is. */
function mutability(initializer: ts.Expression, type: ts.TypeNode | undefined): string | undefined {
  const { expression, readonly } = unwrap(initializer);
  const declaredReadonly = readonly || isReadonlyType(type);
  if (ts.isNewExpression(expression)) {
    const name = expression.expression.getText();
    if (STATELESS_CONSTRUCTORS.has(name) || declaredReadonly) return undefined;
    return `initialised with new ${name}(…) and not typed read-only`;
  }
  if (ts.isArrayLiteralExpression(expression) || ts.isObjectLiteralExpression(expression)) {
    if (declaredReadonly) return undefined;
    const kind = ts.isArrayLiteralExpression(expression) ? "array" : "object";
    return `initialised with an ${kind} literal that is neither \`as const\` nor typed read-only`;
  }
  return undefined;
}

function hasModifier(node: ts.HasModifiers, kind: ts.SyntaxKind): boolean {
  return (ts.getModifiers(node) ?? []).some((m) => m.kind === kind);
}

/** The module-level mutable state in one source text (see {@link ModuleStateFinding} for the rule). */
export function findModuleState(fileName: string, text: string): ModuleStateFinding[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const findings: ModuleStateFinding[] = [];
  const add = (node: ts.Node, name: string, rule: string) =>
    findings.push({
      file: fileName,
      line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1,
      name,
      rule,
    });
  for (const statement of source.statements) {
    if (ts.isVariableStatement(statement)) {
      const flags = statement.declarationList.flags;
      for (const declaration of statement.declarationList.declarations) {
        const name = declaration.name.getText();
        if ((flags & ts.NodeFlags.Const) === 0) {
          add(declaration, name, (flags & ts.NodeFlags.Let) !== 0 ? "module-level let" : "module-level var");
          continue;
        }
        const why = declaration.initializer && mutability(declaration.initializer, declaration.type);
        if (why) add(declaration, name, `module-level const ${why}`);
      }
    } else if (ts.isClassDeclaration(statement)) {
      for (const member of statement.members) {
        if (!ts.isPropertyDeclaration(member) || !hasModifier(member, ts.SyntaxKind.StaticKeyword)) continue;
        const name = `${statement.name?.text ?? "(class)"}.${member.name.getText()}`;
        if (!hasModifier(member, ts.SyntaxKind.ReadonlyKeyword)) {
          add(member, name, "static property that is not readonly");
          continue;
        }
        const why = member.initializer && mutability(member.initializer, member.type);
        if (why) add(member, name, `static readonly property ${why}`);
      }
    }
  }
  return findings;
}

/** The TypeScript sources below `dir`, tests (`*.test.ts`) left out. */
export function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith(".ts") && !e.name.endsWith(".test.ts"))
    .map((e) => join(e.parentPath, e.name))
    .sort();
}

/** The module-level mutable state in every source below `srcDir`, with paths relative to `root`. */
export function scanSources(srcDir: string, root: string): ModuleStateFinding[] {
  return sourceFiles(srcDir).flatMap((file) =>
    findModuleState(relative(root, file), readFileSync(file, "utf8")),
  );
}
