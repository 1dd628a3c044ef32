import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  api,
  echoTool,
  fixtureCapability,
  type RouterProcess,
  type RunningProcess,
  repoRoot,
  serviceHealthy,
  startNode,
  startRouter,
  stopAll,
} from "./support/processes.js";

/**
 * Code mode with a third-party engine made with the capability SDK (fixtures/relay-engine.mjs): the router gives it
 * the run's capability in the ExecuteCode metadata, as it gives the built-in engine, and the engine relays tool
 * calls with it as docs/code-mode.md tells an engine author to. The capability opens only its own run's calls, in
 * the caller's namespace, while the run lasts.
 */

const ADMIN = "third-party-admin-token-5b1e9c3a7d2f4e80";
const ALICE = "third-party-alice-token-8c2f6a0d4e1b3f97";
const REGISTER = "third-party-register-token-3e7a9d1c5f2b4a60";
const admin = { authorization: `Bearer ${ADMIN}` };
const relayEngine = join(repoRoot, "packages", "e2e", "fixtures", "relay-engine.mjs");

let router: RouterProcess;
let engine: RunningProcess;
let alice: Client;

interface Relayed {
  name?: string;
  status?: number;
  channel?: boolean;
  capability?: boolean;
  answer?: { isError?: boolean; content?: { text?: string }[]; error?: { message?: string } };
}

/** Runs `calls` on the relay engine as alice, in her default namespace; each line the engine printed. */
async function relay(calls: object[]): Promise<Relayed[]> {
  const result = await alice.callTool(
    {
      name: "execute_code",
      arguments: { language: "relay", code: JSON.stringify(calls), timeoutMs: 20_000 },
    },
    CallToolResultSchema,
    { timeout: 60_000 },
  );
  const out = result.structuredContent as { status?: string; stdout?: string } | undefined;
  if (out?.status !== "completed") throw new Error(JSON.stringify(result));
  return (out.stdout ?? "")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Relayed);
}

beforeAll(async () => {
  router = await startRouter([], {
    TRESTLE_TOKENS: JSON.stringify([
      { name: "ops", token: ADMIN, scopes: ["admin"] },
      { name: "alice", token: ALICE, scopes: ["mcp"] },
      { name: "engines", token: REGISTER, scopes: ["register"] },
    ]),
    TRESTLE_REGISTRATION_ALLOWED_NETWORKS: "127.0.0.0/8",
    TRESTLE_POLICIES: JSON.stringify([
      {
        name: "no-code-in-locked",
        effect: "deny",
        when: 'ns == "locked" && tool.name == "execute_code"',
      },
    ]),
  });
  const fixture = startNode(fixtureCapability, [
    "--router",
    router.url,
    "--service-name",
    "fixture",
    "--service-type",
    "tool-invoker",
    "--token",
    REGISTER,
  ]);
  engine = startNode(relayEngine, ["--router", router.url, "--token", REGISTER]);
  await Promise.all([
    fixture.waitForLine((line) => line.includes('"ready"'), 120_000),
    engine.waitForLine((line) => line.includes('"ready"'), 120_000),
  ]);
  await Promise.all([
    serviceHealthy(router.url, "fixture", admin),
    serviceHealthy(router.url, "relay-engine", admin),
  ]);
  await api(router.url, "POST", "/api/v1/tools", echoTool("get-weather", "fixture"), admin);
  await api(router.url, "POST", "/api/v1/namespaces", { name: "other" }, admin);
  await api(router.url, "POST", "/api/v1/namespaces", { name: "locked" }, admin);
  await api(
    router.url,
    "POST",
    "/api/v1/tools",
    { ...echoTool("vault", "fixture"), namespace: "other" },
    admin,
  );
  alice = new Client({ name: "third-party-engine-e2e", version: "1.0.0" });
  await alice.connect(
    new StreamableHTTPClientTransport(new URL(`${router.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${ALICE}` } },
    }),
  );
}, 180_000);

afterAll(async () => {
  await alice?.close();
  await stopAll();
});

describe("code mode: a third-party engine made with the capability SDK", () => {
  it("gets the run's tool channel and capability, and makes an inner call with them in the caller's namespace only", async () => {
    const [received, weather, elsewhere] = await relay([
      { name: "get-weather", arguments: { city: "Oslo" } },
      { name: "vault", arguments: {} },
    ]);
    expect(received).toEqual({ channel: true, capability: true });
    expect(weather?.status).toBe(200);
    expect(weather?.answer?.isError).not.toBe(true);
    expect(JSON.stringify(weather?.answer)).toContain("Oslo");
    // A tool of another namespace does not exist for the run: the capability is bound to alice's namespace.
    expect(elsewhere?.status).toBe(200);
    expect(elsewhere?.answer?.isError).toBe(true);
    expect(JSON.stringify(elsewhere?.answer)).toMatch(/unknown tool/i);
  });

  it("cannot make a call with another run's capability, nor with one never minted", async () => {
    await relay([{ name: "get-weather", arguments: { city: "Bergen" } }]);
    const [, previous, forged, own] = await relay([
      { name: "get-weather", arguments: { city: "Tromsø" }, capability: "previous" },
      { name: "get-weather", arguments: { city: "Tromsø" }, capability: "forged" },
      { name: "get-weather", arguments: { city: "Tromsø" } },
    ]);
    expect(previous?.status).toBe(401);
    expect(JSON.stringify(previous?.answer)).not.toContain("Tromsø");
    expect(forged?.status).toBe(401);
    expect(own?.status).toBe(200);
    expect(JSON.stringify(own?.answer)).toContain("Tromsø");
  });

  it("gets nothing where the namespace's policy refuses code execution: the run never reaches it", async () => {
    const runsBefore = engine.lines.filter((l) => l.includes('"event":"run"')).length;
    const locked = new Client({ name: "third-party-engine-e2e-locked", version: "1.0.0" });
    await locked.connect(
      new StreamableHTTPClientTransport(new URL(`${router.url}/locked/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${ALICE}` } },
      }),
    );
    try {
      const refused = await locked
        .callTool(
          { name: "execute_code", arguments: { language: "relay", code: "[]", timeoutMs: 20_000 } },
          CallToolResultSchema,
        )
        .then(
          (result) => JSON.stringify(result),
          (error: Error) => error.message,
        );
      expect(refused).toMatch(/denied|not allowed|refused|no-code-in-locked|unknown tool/i);
    } finally {
      await locked.close();
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(engine.lines.filter((l) => l.includes('"event":"run"'))).toHaveLength(runsBefore);
  });
});

describe("code mode turned off (codeMode.tools: false)", () => {
  it("runs a third-party engine's program without a tool channel or capability", async () => {
    const plain = await startRouter([], {
      TRESTLE_TOKENS: JSON.stringify([
        { name: "ops", token: ADMIN, scopes: ["admin"] },
        { name: "alice", token: ALICE, scopes: ["mcp"] },
        { name: "engines", token: REGISTER, scopes: ["register"] },
      ]),
      TRESTLE_REGISTRATION_ALLOWED_NETWORKS: "127.0.0.0/8",
      TRESTLE_CODE_MODE: JSON.stringify({ tools: false }),
    });
    const offEngine = startNode(relayEngine, ["--router", plain.url, "--token", REGISTER]);
    await offEngine.waitForLine((line) => line.includes('"ready"'), 120_000);
    await serviceHealthy(plain.url, "relay-engine", admin);
    const client = new Client({ name: "third-party-engine-e2e-off", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${plain.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${ALICE}` } },
      }),
    );
    try {
      const result = await client.callTool(
        { name: "execute_code", arguments: { language: "relay", code: "[]", timeoutMs: 20_000 } },
        CallToolResultSchema,
        { timeout: 60_000 },
      );
      const out = result.structuredContent as { status?: string; stdout?: string } | undefined;
      expect(out?.status).toBe("completed");
      expect(JSON.parse((out?.stdout ?? "").split("\n")[0] ?? "")).toEqual({
        channel: false,
        capability: false,
      });
    } finally {
      await client.close();
    }
  }, 120_000);
});
