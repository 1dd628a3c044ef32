import { type CelEnv, type CelResult, type CelValue, parse, plan } from "@bufbuild/cel";
import type { PolicyProblem } from "./errors.js";
import { expressionReferences, lineAndColumn } from "./syntax-tree.js";
import type { CompiledRuleInfo, PolicyEffect } from "./types.js";

/** The variables a rule may read. */
export const POLICY_VARIABLES: readonly string[] = Object.freeze([
  "principal",
  "ns",
  "method",
  "tool",
  "resource",
  "prompt",
  "arguments",
]);

// Type names CEL lets an expression mention as values (`type(x) == map`).
const TYPE_NAMES = new Set([
  "int",
  "uint",
  "double",
  "bool",
  "string",
  "bytes",
  "list",
  "map",
  "null_type",
  "type",
  "dyn",
]);

/** The longest `when` accepted, in characters. */
export const MAX_EXPRESSION_LENGTH = 4096;

/** A rule ready to evaluate. */
export interface CompiledRule extends CompiledRuleInfo {
  /** Evaluates the rule's expression against CEL bindings; never throws (errors are values). */
  evaluate(bindings: Record<string, CelValue>): CelResult;
}

/**
 * Checks and compiles one configured rule. Problems (a bad shape, a syntax error, an unknown variable or
 * function) are returned, one sentence each, naming the rule and the line and column.
 */
export function compileRule(
  candidate: unknown,
  index: number,
  env: CelEnv,
): { rule: CompiledRule; problems: [] } | { rule: undefined; problems: PolicyProblem[] } {
  const fields = (typeof candidate === "object" && candidate !== null ? candidate : {}) as Record<
    string,
    unknown
  >;
  const label = typeof fields.name === "string" && fields.name !== "" ? fields.name : `#${index + 1}`;
  const problem = (message: string, at?: { line: number; column: number }): PolicyProblem => ({
    rule: label,
    message: `Policy rule "${label}" ${message}${at ? ` at line ${at.line}, column ${at.column}` : ""}`,
    ...(at ?? {}),
  });

  const shape: PolicyProblem[] = [];
  if (typeof fields.name !== "string" || fields.name === "") shape.push(problem("needs a name"));
  if (fields.effect !== "allow" && fields.effect !== "deny") {
    shape.push(problem(`has effect ${JSON.stringify(fields.effect)}; it must be "allow" or "deny"`));
  }
  if (typeof fields.when !== "string" || fields.when.trim() === "") {
    shape.push(problem('needs a "when" expression'));
  } else if (fields.when.length > MAX_EXPRESSION_LENGTH) {
    shape.push(problem(`has a "when" longer than ${MAX_EXPRESSION_LENGTH} characters`));
  }
  if (shape.length > 0) return { rule: undefined, problems: shape };
  const when = fields.when as string;

  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(when);
  } catch (error) {
    const details = error as {
      rawMessage?: string;
      message?: string;
      location?: { start?: { line: number; column: number; offset: number } };
    };
    const start = details.location?.start;
    const at = start ? { line: start.line, column: start.column } : undefined;
    const raw = details.rawMessage ?? details.message ?? "not valid CEL";
    if (raw === "reserved identifier" && start && /^namespace\b/.test(when.slice(start.offset))) {
      return {
        rule: undefined,
        problems: [
          problem('uses "namespace", a reserved word in CEL (the namespace is the variable "ns")', at),
        ],
      };
    }
    return { rule: undefined, problems: [problem(`has a syntax error (${raw})`, at)] };
  }

  const expr = parsed.expr;
  if (expr === undefined) return { rule: undefined, problems: [problem("has an empty expression")] };
  const references = expressionReferences(expr, parsed.sourceInfo?.positions ?? {});
  const problems: PolicyProblem[] = [];
  for (const use of references.variables) {
    if (!POLICY_VARIABLES.includes(use.name) && !TYPE_NAMES.has(use.name)) {
      problems.push(
        problem(
          `reads "${use.name}", which is not a variable (the variables are ${POLICY_VARIABLES.join(", ")})`,
          lineAndColumn(when, use.offset),
        ),
      );
    }
  }
  for (const call of references.functions) {
    const known =
      (call.qualified !== undefined && env.funcs.find(call.qualified) !== undefined) ||
      env.funcs.find(call.name) !== undefined;
    if (!known)
      problems.push(
        problem(`calls "${call.name}", which is not a CEL function`, lineAndColumn(when, call.offset)),
      );
  }
  if (problems.length > 0) return { rule: undefined, problems };

  const evaluate = plan(env, parsed) as (bindings: Record<string, CelValue>) => CelResult;
  return {
    rule: {
      name: fields.name as string,
      effect: fields.effect as PolicyEffect,
      when,
      readsArguments: references.variables.some((use) => use.name === "arguments"),
      evaluate,
    },
    problems: [],
  };
}
