import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { modernRequest } from "./support/mcp-wire.js";
import {
  api,
  echoTool,
  eventually,
  serviceHealthy,
  startFixtureCapability,
  startRouter,
  stopAll,
} from "./support/processes.js";

const register = fileURLToPath(new URL("../fixtures/module-trace/register.mjs", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "trestle-module-trace-"));

afterAll(async () => {
  await stopAll();
  rmSync(dir, { recursive: true, force: true });
});

/** Stacks an idle router on the embedded store has no use for, by a part of their module URLs. */
const UNUSED_WHEN_IDLE = {
  "the A2A SDK": "/@a2a-js+sdk@",
  "the A2A transport": "/transport-a2a/dist/index.js",
  "the MCP client transport": "/transport-mcp/dist/index.js",
  "the Connect transport": "/transport-connect/",
  "connect-node": "/@connectrpc+connect-node@",
  "the PostgreSQL driver": "/pg@",
  "grpc-js": "/@grpc+grpc-js@",
  "the transport plugins' resolver": "/import-meta-resolve@",
  "the policy engine": "/policy/dist/index.js",
  CEL: "/@bufbuild+cel@",
  "the OAuth verifier": "/auth/dist/oauth-verifier.js",
  jose: "/jose@",
};

describe("what an idle router holds", () => {
  it("loads no protocol stack nothing uses yet, and loads the A2A stack with the first A2A request", async () => {
    const trace = join(dir, "modules.txt");
    const router = await startRouter([], {
      // Quoted: NODE_OPTIONS splits on spaces, and the checkout may live under a path with one.
      NODE_OPTIONS: `--import ${JSON.stringify(register)}`,
      TRESTLE_MODULE_TRACE: trace,
    });
    const loaded = () => readFileSync(trace, "utf8");
    // The trace works: the router's own modules and the embedded store's are in it.
    expect(loaded()).toContain("/server/dist/router.js");
    expect(loaded()).toContain("/@electric-sql+pglite@");
    const present = Object.entries(UNUSED_WHEN_IDLE).filter(([, part]) => loaded().includes(part));
    expect(present.map(([what]) => what)).toEqual([]);

    const card = await fetch(`${router.url}/a2a/.well-known/agent-card.json`);
    expect(card.status).toBe(200);
    expect(((await card.json()) as { name?: string }).name).toBe("Trestle");
    await eventually(() => loaded().includes(UNUSED_WHEN_IDLE["the A2A SDK"]), 10_000, "the A2A SDK loaded");
  });

  it("loads the policy engine at start when a rule is configured, and the rule decides", {
    timeout: 120_000,
  }, async () => {
    const trace = join(dir, "modules-with-rule.txt");
    const router = await startRouter([], {
      NODE_OPTIONS: `--import ${JSON.stringify(register)}`,
      TRESTLE_MODULE_TRACE: trace,
      TRESTLE_POLICIES: JSON.stringify([
        { name: "no-paris", effect: "deny", when: 'arguments.city == "Paris"' },
      ]),
    });
    const loaded = readFileSync(trace, "utf8");
    expect(loaded).toContain(UNUSED_WHEN_IDLE["the policy engine"]);
    expect(loaded).toContain(UNUSED_WHEN_IDLE.CEL);
    await startFixtureCapability(router.url, ["--service-name", "fixture", "--service-type", "tool-invoker"]);
    await serviceHealthy(router.url, "fixture");
    await api(router.url, "POST", "/api/v1/tools", echoTool("echo", "fixture"));
    const call = (city: string) =>
      modernRequest(`${router.url}/mcp`, "tools/call", { name: "echo", arguments: { city } });
    expect(JSON.stringify((await call("Rome")).body.result)).toContain("Rome");
    expect(JSON.stringify((await call("Paris")).body)).toContain("no-paris");
  });
});
