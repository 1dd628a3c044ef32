import { CallToolRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { acceptCommonToolCall } from "./call-tool-params.js";

/** Values of every JSON kind (and a few JSON cannot carry), for each field the check looks at. */
const VALUES: unknown[] = [
  undefined,
  null,
  0,
  7,
  -3,
  1.5,
  2 ** 53,
  Number.NaN,
  "",
  "echo",
  true,
  [],
  ["a"],
  {},
  { text: "hi", n: 1, nested: { deep: [1, 2] } },
  { __proto__: null, plain: "yes" },
];

function requests(): { method: string; params?: unknown }[] {
  const out: { method: string; params?: unknown }[] = [];
  for (const params of [undefined, null, "x", [], 5]) out.push({ method: "tools/call", params });
  for (const name of VALUES)
    for (const args of VALUES) out.push({ method: "tools/call", params: { name, arguments: args } });
  for (const token of VALUES) {
    out.push({ method: "tools/call", params: { name: "echo", _meta: { progressToken: token } } });
    out.push({
      method: "tools/call",
      params: {
        name: "echo",
        arguments: { a: 1 },
        _meta: { progressToken: token, "x-other": { any: true } },
      },
    });
  }
  for (const meta of VALUES) out.push({ method: "tools/call", params: { name: "echo", _meta: meta } });
  out.push({
    method: "tools/call",
    params: { name: "echo", _meta: { "io.modelcontextprotocol/related-task": { taskId: "t" } } },
  });
  out.push({ method: "tools/call", params: { name: "echo", task: { ttl: 5 } } });
  out.push({ method: "tools/call", params: { name: "echo", task: "no" } });
  out.push({ method: "tools/call", params: { name: "echo", inputResponses: { k: {} }, requestState: "s" } });
  return out;
}

describe("acceptCommonToolCall", () => {
  it("accepts only what the SDK's schema accepts, and returns what it parses", () => {
    let accepted = 0;
    for (const request of requests()) {
      const fast = acceptCommonToolCall(request);
      if (fast === undefined) continue;
      accepted++;
      const parsed = CallToolRequestSchema.safeParse(request);
      expect(parsed.success, JSON.stringify(request)).toBe(true);
      expect(fast).toEqual(parsed.data);
    }
    // The common shapes do take the fast path (the test would pass vacuously otherwise).
    expect(accepted).toBeGreaterThan(20);
  });

  it("leaves to the schema whatever it does not know is valid", () => {
    for (const params of [
      { name: 1 },
      { name: "echo", arguments: [] },
      { name: "echo", arguments: null },
      { name: "echo", _meta: { progressToken: 1.5 } },
      { name: "echo", _meta: { progressToken: {} } },
      { name: "echo", _meta: { "io.modelcontextprotocol/related-task": { taskId: "t" } } },
      { name: "echo", task: { ttl: 5 } },
    ]) {
      expect(acceptCommonToolCall({ method: "tools/call", params }), JSON.stringify(params)).toBeUndefined();
    }
  });

  it("keeps the arguments as they came, own keys such as __proto__ included", () => {
    const args = JSON.parse('{"__proto__": {"polluted": true}, "city": "Oslo"}') as Record<string, unknown>;
    const fast = acceptCommonToolCall({ method: "tools/call", params: { name: "echo", arguments: args } });
    expect(fast?.params.arguments).toBe(args);
    expect(Object.keys(fast?.params.arguments ?? {})).toEqual(["__proto__", "city"]);
  });
});
