import { Code, TrestleError } from "@trestle/core";
import type { Labels } from "@trestle/core/catalog";

/**
 * A parsed label filter: a tree of comparisons joined by `and`, `or` and `not`.
 * `ne` matches entries that lack the key too (as in Wanaku).
 */
export type LabelExpression =
  | { op: "eq"; key: string; value: string }
  | { op: "ne"; key: string; value: string }
  | { op: "and"; left: LabelExpression; right: LabelExpression }
  | { op: "or"; left: LabelExpression; right: LabelExpression }
  | { op: "not"; operand: LabelExpression };

/** Longest expression accepted, as in Wanaku. */
export const MAX_LABEL_EXPRESSION_LENGTH = 1000;
const MAX_DEPTH = 64;

type TokenType = "and" | "or" | "not" | "eq" | "ne" | "lparen" | "rparen" | "word" | "string";

interface Token {
  type: TokenType;
  text: string;
  /** 1-based position of the token's first character. */
  position: number;
}

const WORD_CHAR = /[A-Za-z0-9_.\-/:]/;
const KEYWORDS: Record<string, TokenType> = { AND: "and", OR: "or", NOT: "not" };

function parseError(source: string, position: number, message: string): TrestleError {
  return new TrestleError(
    `Invalid label expression at position ${position}: ${message} (in ${JSON.stringify(source)})`,
    Code.InvalidArgument,
  );
}

function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < source.length) {
    const c = source.charAt(i);
    const position = i + 1;
    if (c === " " || c === "\t" || c === "\n" || c === "\r") {
      i++;
      continue;
    }
    const two = source.slice(i, i + 2);
    if (two === "&&" || two === "||" || two === "!=") {
      tokens.push({ type: two === "&&" ? "and" : two === "||" ? "or" : "ne", text: two, position });
      i += 2;
      continue;
    }
    const single: Record<string, TokenType> = {
      "&": "and",
      "|": "or",
      "!": "not",
      "=": "eq",
      "(": "lparen",
      ")": "rparen",
    };
    const singleType = single[c];
    if (singleType) {
      tokens.push({ type: singleType, text: c, position });
      i++;
      continue;
    }
    if (c === '"') {
      let text = "";
      let j = i + 1;
      let closed = false;
      while (j < source.length) {
        const d = source.charAt(j);
        if (d === "\\") {
          const escaped = source.charAt(j + 1);
          if (escaped !== '"' && escaped !== "\\") {
            throw parseError(source, j + 1, 'only \\" and \\\\ may be escaped in a quoted value');
          }
          text += escaped;
          j += 2;
          continue;
        }
        if (d === '"') {
          closed = true;
          break;
        }
        text += d;
        j++;
      }
      if (!closed) throw parseError(source, position, "the quoted value is not closed with '\"'");
      tokens.push({ type: "string", text, position });
      i = j + 1;
      continue;
    }
    if (WORD_CHAR.test(c)) {
      let j = i;
      while (j < source.length && WORD_CHAR.test(source.charAt(j))) j++;
      const text = source.slice(i, j);
      tokens.push({ type: KEYWORDS[text] ?? "word", text, position });
      i = j;
      continue;
    }
    throw parseError(
      source,
      position,
      `unexpected character ${JSON.stringify(c)}; use label keys and values of letters, digits, '_', '-', '.', '/', ':' (or a "quoted value"), the operators = != & | ! AND OR NOT, and parentheses`,
    );
  }
  return tokens;
}

/**
 * Parses a label filter in Wanaku's expression language: comparisons `key=value` and `key!=value`, joined by
 * `&` (or `AND`), `|` (or `OR`), negated by `!` (or `NOT`), grouped with parentheses; `NOT` binds tighter
 * than `AND`, which binds tighter than `OR`. Values may also be written in double quotes (`team="data eng"`),
 * which Trestle adds to Wanaku's language.
 *
 * @example
 * ```ts
 * const filter = parseLabelExpression("env=prod & !(team=legacy | tier!=gold)");
 * matchesLabels(filter, { env: "prod", tier: "gold" }); // true
 * ```
 * @throws TrestleError `InvalidArgument` naming the 1-based position of the first problem.
 */
export function parseLabelExpression(source: string): LabelExpression {
  if (typeof source !== "string" || source.trim() === "") {
    throw new TrestleError("Invalid label expression: it is empty", Code.InvalidArgument);
  }
  if (source.length > MAX_LABEL_EXPRESSION_LENGTH) {
    throw new TrestleError(
      `Invalid label expression: it has ${source.length} characters, more than the ${MAX_LABEL_EXPRESSION_LENGTH} allowed`,
      Code.InvalidArgument,
    );
  }
  const tokens = tokenize(source);
  let index = 0;
  const endPosition = source.length + 1;

  const peek = (): Token | undefined => tokens[index];
  const describe = (token: Token | undefined): string =>
    token ? `'${token.text}'` : "the end of the expression";

  function parseOr(depth: number): LabelExpression {
    let left = parseAnd(depth);
    while (peek()?.type === "or") {
      index++;
      left = { op: "or", left, right: parseAnd(depth) };
    }
    return left;
  }

  function parseAnd(depth: number): LabelExpression {
    let left = parseNot(depth);
    while (peek()?.type === "and") {
      index++;
      left = { op: "and", left, right: parseNot(depth) };
    }
    return left;
  }

  function parseNot(depth: number): LabelExpression {
    const token = peek();
    if (depth > MAX_DEPTH) {
      throw parseError(source, token?.position ?? endPosition, `nesting is deeper than ${MAX_DEPTH} levels`);
    }
    if (token?.type === "not") {
      index++;
      return { op: "not", operand: parseNot(depth + 1) };
    }
    return parsePrimary(depth);
  }

  function parsePrimary(depth: number): LabelExpression {
    const token = peek();
    if (token?.type === "lparen") {
      index++;
      const inner = parseOr(depth + 1);
      const closing = peek();
      if (closing?.type !== "rparen") {
        throw parseError(
          source,
          closing?.position ?? endPosition,
          `expected ')' to close the '(' at position ${token.position}, found ${describe(closing)}`,
        );
      }
      index++;
      return inner;
    }
    if (token?.type !== "word" && token?.type !== "string") {
      throw parseError(
        source,
        token?.position ?? endPosition,
        `expected a label key, found ${describe(token)}`,
      );
    }
    index++;
    const operator = peek();
    if (operator?.type !== "eq" && operator?.type !== "ne") {
      throw parseError(
        source,
        operator?.position ?? endPosition,
        `expected '=' or '!=' after the label key '${token.text}', found ${describe(operator)}`,
      );
    }
    index++;
    const value = peek();
    // A word in value position is a value even when it spells a keyword: `level=NOT` compares with "NOT".
    if (
      value === undefined ||
      !(value.type === "word" || value.type === "string" || KEYWORDS[value.text] !== undefined)
    ) {
      throw parseError(
        source,
        value?.position ?? endPosition,
        `expected a label value after '${operator.text}', found ${describe(value)}`,
      );
    }
    index++;
    return { op: operator.type, key: token.text, value: value.text };
  }

  const expression = parseOr(0);
  const rest = peek();
  if (rest) {
    throw parseError(
      source,
      rest.position,
      rest.type === "rparen"
        ? "found ')' without a matching '('"
        : `expected '&', '|' or the end of the expression, found ${describe(rest)}`,
    );
  }
  return expression;
}

/** True when `labels` satisfy `expression`. Missing labels compare unequal to every value. */
export function matchesLabels(expression: LabelExpression, labels: Labels | undefined): boolean {
  switch (expression.op) {
    case "eq":
      return (
        labels !== undefined &&
        Object.hasOwn(labels, expression.key) &&
        labels[expression.key] === expression.value
      );
    case "ne":
      return !(
        labels !== undefined &&
        Object.hasOwn(labels, expression.key) &&
        labels[expression.key] === expression.value
      );
    case "and":
      return matchesLabels(expression.left, labels) && matchesLabels(expression.right, labels);
    case "or":
      return matchesLabels(expression.left, labels) || matchesLabels(expression.right, labels);
    case "not":
      return !matchesLabels(expression.operand, labels);
  }
}

/** Accepts a filter as text or parsed, and returns it parsed. */
export function toLabelExpression(filter: LabelExpression | string): LabelExpression {
  return typeof filter === "string" ? parseLabelExpression(filter) : filter;
}
