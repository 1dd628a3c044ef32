import { describe, expect, it } from "vitest";
import { parameterIdentifiers, toolIdentifiers } from "../src/index.js";

describe("toolIdentifiers", () => {
  it("maps names predictably", () => {
    const ids = toolIdentifiers([
      "get-weather",
      "2fa.reset",
      "class",
      "call",
      "then",
      "__init__",
      "",
      "café.menu",
      "GetWeather",
      "files/list",
    ]);
    expect([...ids].sort()).toEqual(
      [
        ["get-weather", "get_weather"],
        ["2fa.reset", "_2fa_reset"],
        ["class", "class_"],
        ["call", "call_"],
        ["then", "then_"],
        ["__init__", "_init__"],
        ["", "_"],
        ["café.menu", "caf__menu"],
        ["GetWeather", "GetWeather"],
        ["files/list", "files_list"],
      ].sort(),
    );
  });

  it("resolves collisions with numeric suffixes in name order, valid names keeping their own", () => {
    const ids = toolIdentifiers(["get.weather", "get-weather", "get_weather", "get_weather_2"]);
    expect(ids.get("get_weather")).toBe("get_weather");
    expect(ids.get("get_weather_2")).toBe("get_weather_2");
    expect(ids.get("get-weather")).toBe("get_weather_3");
    expect(ids.get("get.weather")).toBe("get_weather_4");
    expect(new Set(ids.values()).size).toBe(4);
  });

  it("does not depend on the order of the names", () => {
    const names = ["a-b", "a.b", "a_b", "class", "class_", "1x", "_1x"];
    const reversed = toolIdentifiers([...names].reverse());
    expect(toolIdentifiers(names)).toEqual(reversed);
    expect(reversed.get("class")).toBe("class__2");
    expect(reversed.get("1x")).toBe("_1x_2");
  });

  it("gives every name of a large catalog a distinct valid Python and JavaScript identifier", () => {
    const names = Array.from(
      { length: 2000 },
      (_, i) => `${["x-", "x.", "x_", "X", "9", "def", "for"][i % 7]}${i % 300}`,
    );
    const ids = toolIdentifiers(names);
    expect(new Set(ids.values()).size).toBe(new Set(names).size);
    for (const id of ids.values()) expect(id).toMatch(/^[A-Za-z_][A-Za-z0-9_]*$/);
  });
});

describe("parameterIdentifiers", () => {
  it("maps argument names to keyword names, avoiding keywords and self", () => {
    expect(
      Object.fromEntries(parameterIdentifiers(["city-name", "from", "self", "limit", "lambda"])),
    ).toEqual({
      "city-name": "city_name",
      from: "from_",
      self: "self_",
      limit: "limit",
      lambda: "lambda_",
    });
  });
});
