import { describe, expect, it } from "vitest";
import { areaOf, type CpuProfile, shortUrl, summariseCpuProfile } from "../src/cpu-profile-summary.js";

const frame = (functionName: string, url = "", lineNumber = 0) => ({ functionName, url, lineNumber });

/** root → handle (server) → parse (zod); root → (idle); root → (garbage collector) */
const profile: CpuProfile = {
  nodes: [
    { id: 1, callFrame: frame("(root)"), children: [2, 4, 5] },
    {
      id: 2,
      callFrame: frame("handle", "file:///w/packages/server/dist/http/http-app.js", 9),
      children: [3],
    },
    {
      id: 3,
      callFrame: frame(
        "parse",
        "file:///w/node_modules/.pnpm/zod@4.6.7/node_modules/zod/v4/core/schemas.js",
        1198,
      ),
    },
    { id: 4, callFrame: frame("(idle)") },
    { id: 5, callFrame: frame("(garbage collector)") },
  ],
  startTime: 1_000,
  endTime: 1_700,
  // Each sample lasts until the next one: 2 → 100 µs, 3 → 300 µs, 4 → 200 µs, 5 → 100 µs, last → 0.
  samples: [2, 3, 4, 5, 3],
  timeDeltas: [0, 100, 300, 200, 100],
};

describe("summariseCpuProfile", () => {
  it("sums self time by area, file and function, and leaves idle time out of the busy time", () => {
    const summary = summariseCpuProfile(profile);
    expect(summary.totalUs).toBe(700);
    expect(summary.busyUs).toBe(500);
    expect(summary.byArea.map((e) => [e.name, e.us])).toEqual([
      ["zod", 300],
      ["@trestle/server", 100],
      ["(garbage collector)", 100],
    ]);
    expect(summary.byFunction[0]).toMatchObject({
      name: "parse zod/v4/core/schemas.js:1199",
      us: 300,
      share: 0.6,
    });
  });

  it("counts a caller's inclusive time with its callees", () => {
    const summary = summariseCpuProfile(profile);
    const handle = summary.byFunctionInclusive.find((e) => e.name.startsWith("handle "));
    expect(handle?.us).toBe(400);
  });

  it("counts only the samples inside a time window", () => {
    const summary = summariseCpuProfile(profile, { fromUs: 1_100, toUs: 1_400 });
    expect(summary.samples).toBe(2);
    expect(summary.busyUs).toBe(300);
  });
});

describe("script names", () => {
  it("shortens node_modules and workspace paths and names their package", () => {
    const url =
      "file:///r/node_modules/.pnpm/@grpc+grpc-js@1.14.7/node_modules/@grpc/grpc-js/build/src/client.js";
    expect(shortUrl(url)).toBe("@grpc/grpc-js/build/src/client.js");
    expect(areaOf(url, "f")).toBe("@grpc/grpc-js");
    expect(areaOf("file:///r/packages/bridge/dist/invoker-bridge.js", "f")).toBe("@trestle/bridge");
    expect(areaOf("node:events", "emit")).toBe("node (built-in modules)");
    expect(areaOf("", "(program)")).toBe("(program)");
    expect(areaOf("", "writev")).toBe("(native)");
  });
});
