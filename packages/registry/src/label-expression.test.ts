import { Code, TrestleError } from "@trestle/core";
import { describe, expect, it } from "vitest";
import { matchesLabels, parseLabelExpression } from "./label-expression.js";

function matches(expression: string, labels: Record<string, string>): boolean {
  return matchesLabels(parseLabelExpression(expression), labels);
}

function errorOf(expression: string): TrestleError {
  try {
    parseLabelExpression(expression);
  } catch (error) {
    if (error instanceof TrestleError) return error;
    throw error;
  }
  throw new Error(`expected '${expression}' to be refused`);
}

describe("label expressions", () => {
  const prodData = { env: "prod", team: "data" };

  it("compares with = and !=, where != also matches a missing label", () => {
    expect(matches("env=prod", prodData)).toBe(true);
    expect(matches("env=dev", prodData)).toBe(false);
    expect(matches("env!=dev", prodData)).toBe(true);
    expect(matches("tier!=gold", prodData)).toBe(true);
    expect(matches("tier=gold", prodData)).toBe(false);
  });

  it("joins with & and AND, | and OR, negates with ! and NOT", () => {
    expect(matches("env=prod & team=data", prodData)).toBe(true);
    expect(matches("env=prod AND team=geo", prodData)).toBe(false);
    expect(matches("env=dev | team=data", prodData)).toBe(true);
    expect(matches("env=dev OR team=geo", prodData)).toBe(false);
    expect(matches("!env=dev", prodData)).toBe(true);
    expect(matches("NOT env=prod", prodData)).toBe(false);
    expect(matches("env=prod && team=data || x=y", prodData)).toBe(true);
  });

  it("binds NOT tighter than AND, and AND tighter than OR", () => {
    // a | b & c  ==  a | (b & c): true because a holds.
    expect(matches("env=prod | team=geo & tier=gold", prodData)).toBe(true);
    // (a | b) & c: false because c fails.
    expect(matches("(env=prod | team=geo) & tier=gold", prodData)).toBe(false);
    // !a & b  ==  (!a) & b.
    expect(matches("!env=dev & team=data", prodData)).toBe(true);
    expect(matches("!(env=prod & team=data)", prodData)).toBe(false);
    expect(matches("NOT NOT env=prod", prodData)).toBe(true);
  });

  it("reads keys and values with dots, slashes, dashes and colons, and quoted values", () => {
    const labels = { "app.kubernetes.io/name": "weather-v1.2", owner: "data eng", level: "NOT" };
    expect(matches("app.kubernetes.io/name=weather-v1.2", labels)).toBe(true);
    expect(matches('owner="data eng"', labels)).toBe(true);
    expect(matches('owner="say \\"hi\\""', { owner: 'say "hi"' })).toBe(true);
    expect(matches("level=NOT", labels)).toBe(true);
  });

  it("refuses bad expressions with InvalidArgument naming the position", () => {
    const cases: [string, string][] = [
      ["env=prod &", "position 11: expected a label key, found the end of the expression"],
      ["env=", "position 5: expected a label value after '=', found the end of the expression"],
      ["env prod", "position 5: expected '=' or '!=' after the label key 'env', found 'prod'"],
      ["(env=prod", "position 10: expected ')' to close the '(' at position 1"],
      ["env=prod)", "position 9: found ')' without a matching '('"],
      ["env=prod team=x", "position 10: expected '&', '|' or the end of the expression, found 'team'"],
      ["env=prod; DROP TABLE x", 'position 9: unexpected character ";"'],
      ['owner="open', "position 7: the quoted value is not closed"],
      ["=prod", "position 1: expected a label key, found '='"],
      ["env=&", "position 5: expected a label value after '=', found '&'"],
    ];
    for (const [expression, message] of cases) {
      const error = errorOf(expression);
      expect(error.code, expression).toBe(Code.InvalidArgument);
      expect(error.rawMessage, expression).toContain(message);
    }
    expect(errorOf("   ").rawMessage).toContain("it is empty");
    expect(errorOf(`a=${"b".repeat(1000)}`).rawMessage).toContain("more than the 1000 allowed");
    expect(errorOf(`${"!".repeat(70)}a=b`).rawMessage).toContain("deeper than 64 levels");
  });
});
