import { describe, expect, it } from "vitest";
import { listenForCodeMode } from "../src/root/code-mode-listener.js";

describe("a worker's code-mode listener", () => {
  it("serves the code-mode endpoint on a loopback port of its own, and nothing else", async () => {
    const served: string[] = [];
    const listener = await listenForCodeMode(
      async (_req, res, path) => {
        served.push(path);
        res.writeHead(200, { "content-type": "application/json" }).end("{}");
      },
      () => undefined,
    );
    try {
      expect(listener.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const call = await fetch(`${listener.url}/internal/code-mode/v1/call`, { method: "POST", body: "{}" });
      expect(call.status).toBe(200);
      const mcp = await fetch(`${listener.url}/mcp`, { method: "POST", body: "{}" });
      expect(mcp.status).toBe(404);
      expect(served).toEqual(["/internal/code-mode/v1/call"]);
    } finally {
      listener.close();
    }
  });
});
