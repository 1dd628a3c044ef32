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
});
