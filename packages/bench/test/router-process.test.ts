import { describe, expect, it } from "vitest";
import { routerEnvironment } from "../src/router-process.js";

describe("routerEnvironment", () => {
  it("keeps the harness's TRESTLE_* settings away from the router under test, and adds the run's own", () => {
    const parent = {
      PATH: "/usr/bin",
      HOME: "/home/bench",
      TRESTLE_TOKENS: '[{"token":"from-the-shell","role":"admin"}]',
      TRESTLE_MAX_BODY_BYTES: "10",
      UNSET: undefined,
    };
    expect(routerEnvironment(parent, { TRESTLE_STATELESS: "1" })).toEqual({
      PATH: "/usr/bin",
      HOME: "/home/bench",
      TRESTLE_STATELESS: "1",
    });
    expect(routerEnvironment(parent)).toEqual({ PATH: "/usr/bin", HOME: "/home/bench" });
  });
});
