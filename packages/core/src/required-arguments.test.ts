import { describe, expect, it } from "vitest";
import type { ToolReference } from "./catalog.js";
import { Code, TrestleError } from "./error.js";
import { validateRequiredArguments } from "./required-arguments.js";

function tool(extra: Partial<ToolReference> = {}): ToolReference {
  return { name: "forecast", type: "weather", uri: "weather://{city}?units={units}", ...extra };
}

describe("contract §4.1: required arguments", () => {
  const required = tool({ inputSchema: { type: "object", required: ["city", "day", "units"] } });

  it("lists every missing name, in schema order", () => {
    expect(() => validateRequiredArguments({ day: "mon" }, required)).toThrowError(
      "Missing required parameter(s): city, units",
    );
  });

  it("fails with InvalidArgument", () => {
    try {
      validateRequiredArguments({}, required);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(TrestleError);
      expect((error as TrestleError).code).toBe(Code.InvalidArgument);
      expect((error as TrestleError).rawMessage).toBe("Missing required parameter(s): city, day, units");
    }
  });

  it("counts a null value as missing, and any other value (falsy included) as present", () => {
    expect(() => validateRequiredArguments({ city: null, day: 0, units: "" }, required)).toThrowError(
      "Missing required parameter(s): city",
    );
    expect(() => validateRequiredArguments({ city: "Oslo", day: 0, units: false }, required)).not.toThrow();
  });

  it("accepts any arguments when the tool requires none", () => {
    expect(() => validateRequiredArguments({}, tool())).not.toThrow();
  });
});
