import type { IncomingMessage } from "node:http";
import { describe, expect, it } from "vitest";
import { createOriginGuard } from "../src/http/security.js";
import { classifyMessage } from "../src/mcp/json-rpc.js";

const request = (headers: Record<string, string>) => ({ headers }) as unknown as IncomingMessage;

describe("origin guard", () => {
  const guard = createOriginGuard({ allowedHosts: [], allowedOrigins: ["https://app.example"] });

  it("refuses Origin: null, which a sandboxed page sends without a preflight", () => {
    expect(guard.check(request({ host: "127.0.0.1:8080", origin: "null" }))).toContain("not allowed");
  });

  it("accepts loopback and configured origins and refuses others", () => {
    expect(guard.check(request({ host: "localhost:8080", origin: "http://localhost:3000" }))).toBeUndefined();
    expect(guard.check(request({ host: "localhost:8080", origin: "https://app.example" }))).toBeUndefined();
    expect(guard.check(request({ host: "localhost:8080", origin: "https://evil.example" }))).toContain(
      "not allowed",
    );
    expect(guard.check(request({ host: "evil.example" }))).toContain("not allowed");
  });
});

describe("JSON-RPC classification", () => {
  it.each([true, [], "x", { progressToken: {} }])(
    "refuses a malformed _meta (%j) instead of letting it go unanswered",
    (meta) => {
      expect(
        classifyMessage({ jsonrpc: "2.0", id: 1, method: "ping", params: { _meta: meta } }),
      ).toHaveProperty("error");
    },
  );

  it("accepts a well-formed _meta", () => {
    expect(
      classifyMessage({ jsonrpc: "2.0", id: 1, method: "ping", params: { _meta: { progressToken: 7 } } }),
    ).toEqual({
      kind: "request",
    });
  });
});
