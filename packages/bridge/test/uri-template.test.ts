import { describe, expect, it } from "vitest";
import { expandUriTemplate, isUriTemplate, matchUriTemplate, uriTemplateVariables } from "../src/index.js";

describe("URI templates", () => {
  it("lists the variables of a template", () => {
    expect(uriTemplateVariables("weather://{city}/{+path}?d={day}")).toEqual(["city", "path", "day"]);
    expect(isUriTemplate("weather://{city}")).toBe(true);
    expect(isUriTemplate("weather://oslo")).toBe(false);
  });

  it("expands {var} percent-encoded and {+var} with reserved characters kept", () => {
    expect(expandUriTemplate("weather://{city}/today", { city: "São Paulo/x" })).toBe(
      "weather://S%C3%A3o%20Paulo%2Fx/today",
    );
    expect(expandUriTemplate("file:///{+path}", { path: "etc/my file" })).toBe("file:///etc/my%20file");
    expect(expandUriTemplate("x://{missing}", {})).toBe("x://");
  });

  it("matches a concrete URI and decodes the variables", () => {
    expect(matchUriTemplate("weather://{city}/{day}", "weather://S%C3%A3o%20Paulo/mon")).toEqual({
      city: "São Paulo",
      day: "mon",
    });
    expect(matchUriTemplate("db://t/{table}?limit={n}&sort={col}", "db://t/users?limit=5&sort=name")).toEqual(
      {
        table: "users",
        n: "5",
        col: "name",
      },
    );
  });

  it("matches {+var} across slashes but {var} within one segment only", () => {
    expect(matchUriTemplate("file:///{+path}", "file:///etc/hosts")).toEqual({ path: "etc/hosts" });
    expect(matchUriTemplate("file:///{name}", "file:///etc/hosts")).toBeUndefined();
  });

  it("does not match a URI of another shape, or an empty variable", () => {
    expect(matchUriTemplate("weather://{city}/today", "weather://oslo/tomorrow")).toBeUndefined();
    expect(matchUriTemplate("weather://{city}/today", "weather:///today")).toBeUndefined();
    expect(matchUriTemplate("a.b://{x}", "aXb://1")).toBeUndefined();
  });

  it("round-trips: matching an expansion gives the variables back", () => {
    const template = "notes://{owner}/{+path}";
    const variables = { owner: "ann & bob?", path: "2024/q1 plan.md" };
    expect(matchUriTemplate(template, expandUriTemplate(template, variables))).toEqual(variables);
  });

  it("matches a template without placeholders only to itself", () => {
    expect(matchUriTemplate("x://a", "x://a")).toEqual({});
    expect(matchUriTemplate("x://a", "x://b")).toBeUndefined();
  });

  it("matches in time linear in the URI's length, even against several reserved expansions", () => {
    const long = "a/".repeat(100_000);
    for (const [template, uri] of [
      ["notes://{+owner}/{+path}/end", `notes://${long}`],
      ["x://{+a}{+b}{+c}/z", `x://${"a".repeat(200_000)}`],
      ["x://{+a}-{+b}", `x://${"-".repeat(200_000)}`],
    ] as const) {
      const started = performance.now();
      matchUriTemplate(template, uri);
      // A backtracking matcher takes seconds to minutes here; a linear one, milliseconds.
      expect(performance.now() - started).toBeLessThan(1_500);
    }
    expect(matchUriTemplate("notes://{+owner}/{+path}/end", `notes://${long}x/end`)).toEqual({
      owner: "a",
      path: `${long.slice(2)}x`,
    });
  });

  it("binds exactly what the regular expressions it replaces bound (lazy {+var}, greedy {var})", () => {
    // The former implementation, kept here as the reference for the semantics.
    const reference = (template: string, uri: string) => {
      const names: string[] = [];
      let pattern = "^";
      let last = 0;
      for (const match of template.matchAll(/\{(\+?)([A-Za-z0-9_.%]+)\}/g)) {
        pattern += template.slice(last, match.index).replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
        pattern += match[1] ? "(.+?)" : "([^/?#&]+)";
        names.push(match[2] as string);
        last = match.index + match[0].length;
      }
      pattern += `${template.slice(last).replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`;
      const found = new RegExp(pattern, "s").exec(uri);
      if (!found) return undefined;
      return Object.fromEntries(names.map((name, i) => [name, decodeURIComponent(found[i + 1] as string)]));
    };
    let seed = 42;
    const random = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed % n;
    };
    const pieces = ["a", "/", "?", "&", "-", ".", "{x}", "{+y}", "{z}", "{+w}"];
    const chars = ["a", "b", "/", "?", "&", "-", ".", "\n"];
    let compared = 0;
    for (let i = 0; i < 5_000; i++) {
      const used = new Set<string>();
      let template = "s://";
      for (let k = random(5) + 1; k > 0; k--) {
        const piece = pieces[random(pieces.length)] as string;
        // A variable appears once in a template.
        if (piece.startsWith("{") && used.has(piece)) continue;
        used.add(piece);
        template += piece;
      }
      let uri = "s://";
      for (let k = random(9); k > 0; k--) uri += chars[random(chars.length)];
      expect(matchUriTemplate(template, uri), `${template} ~ ${JSON.stringify(uri)}`).toEqual(
        reference(template, uri),
      );
      if (reference(template, uri)) compared++;
    }
    // The comparison covered matches, not only refusals.
    expect(compared).toBeGreaterThan(200);
  });
});
