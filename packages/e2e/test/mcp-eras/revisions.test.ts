import { readFileSync } from "node:fs";
import { join } from "node:path";
import AjvDraft7 from "ajv";
import Ajv2020 from "ajv/dist/2020.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { modernRequest, openLegacySession } from "../support/mcp-wire.js";
import { api, eventually, type RouterProcess, repoRoot, startRouter, stopAll } from "../support/processes.js";

const MODERN_FIXTURE = join(repoRoot, "packages", "e2e", "fixtures", "modern-mcp-server.mjs");
const SCHEMAS = join(repoRoot, "packages", "server", "test", "mcp-schemas");

interface ToolCallEvent {
  type: string;
  toolName: string;
  translation?: {
    client: { protocol: string; version?: string; method: string };
    backend: { protocol: string; method: string };
    notes: { action: string; what: string; detail: string }[];
  };
}

/** A validator of one revision's `CallToolResult`, from the official schema of that revision. */
function callToolResultValidator(revision: string) {
  const schema = JSON.parse(readFileSync(join(SCHEMAS, `${revision}.json`), "utf8")) as Record<
    string,
    unknown
  >;
  const defs = (schema.$defs ?? schema.definitions) as Record<string, unknown>;
  const ajv =
    schema.$schema && String(schema.$schema).includes("2020-12")
      ? new Ajv2020.default({ strict: false, validateFormats: false })
      : new AjvDraft7.default({ strict: false, validateFormats: false });
  ajv.addSchema(schema, "mcp");
  const key = schema.$defs ? "$defs" : "definitions";
  const validate = ajv.getSchema(`mcp#/${key}/CallToolResult`);
  if (!validate || !defs.CallToolResult) throw new Error(`no CallToolResult in the ${revision} schema`);
  return (value: unknown) => {
    const ok = validate(value);
    return ok ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
  };
}

/**
 * One namespace, one forward whose tool returns audio, a resource link and structured content: each client gets
 * the result its own revision defines (validated against that revision's official schema), and the call events
 * say what was translated. Then input round trips through forwards, in both eras.
 */
describe("every MCP revision served correctly through one router", () => {
  let router: RouterProcess;
  let mcp: string;

  beforeAll(async () => {
    router = await startRouter();
    mcp = `${router.url}/mcp`;
    // A 2026-07-28 upstream (the transport speaks its era to it) and the same server as a legacy-only upstream
    // spawned per call, whose questions come as server-to-client requests while the call runs.
    await api(router.url, "POST", "/api/v1/forwards", {
      name: "modern",
      upstream: { kind: "stdio", command: process.execPath, args: [MODERN_FIXTURE], cwd: repoRoot },
    });
    await api(router.url, "POST", "/api/v1/forwards", {
      name: "legacy",
      prefix: "legacy_",
      upstream: {
        kind: "stdio",
        command: process.execPath,
        args: [MODERN_FIXTURE, "--legacy-only"],
        cwd: repoRoot,
        mode: "per-call",
      },
    });
    await eventually(
      async () => {
        const tools = await api<{ name: string }[]>(router.url, "GET", "/api/v1/tools");
        return tools.some((t) => t.name === "test_rich_result") &&
          tools.some((t) => t.name === "legacy_test_sampling_request")
          ? true
          : undefined;
      },
      60_000,
      "the forwards' tools imported",
    );
  }, 120_000);

  afterAll(stopAll);

  async function eventFor(revision: string): Promise<ToolCallEvent> {
    return eventually(
      async () => {
        const history = await api<ToolCallEvent[]>(
          router.url,
          "GET",
          "/api/v2/tool-calls/history?limit=1000",
        );
        return history.find(
          (e) =>
            e.type === "completed" &&
            e.toolName === "test_rich_result" &&
            e.translation?.client.version === revision,
        );
      },
      10_000,
      `the completed event of the ${revision} call`,
    );
  }

  it("gives a 2024-11-05 client a result valid in 2024-11-05, and records what was translated", async () => {
    const session = await openLegacySession(mcp, "2024-11-05");
    expect(session.protocolVersion).toBe("2024-11-05");
    const answer = await session.request("tools/call", { name: "test_rich_result", arguments: {} });
    const result = answer.body.result as { content: { type: string }[]; structuredContent?: unknown };
    expect(callToolResultValidator("2024-11-05")(result)).toEqual([]);
    expect(result.content.map((c) => c.type).every((t) => ["text", "image", "resource"].includes(t))).toBe(
      true,
    );
    expect(result.structuredContent).toBeUndefined();
    const event = await eventFor("2024-11-05");
    const whats = event.translation?.notes.map((n) => n.what).join("\n") ?? "";
    expect(whats).toMatch(/audio/);
    expect(whats).toMatch(/resource_link/);
    expect(whats).toMatch(/structuredContent/);
    await session.close();
  });

  it("gives a 2025-06-18 client resource links and structured content, but no icons", async () => {
    const session = await openLegacySession(mcp, "2025-06-18");
    const answer = await session.request("tools/call", { name: "test_rich_result", arguments: {} });
    const result = answer.body.result as { content: { type: string }[]; structuredContent?: unknown };
    expect(callToolResultValidator("2025-06-18")(result)).toEqual([]);
    expect(result.content.map((c) => c.type)).toEqual(["text", "audio", "resource_link"]);
    expect(result.structuredContent).toEqual({ temperature: 21.5, unit: "celsius" });
    const listed = await session.request("tools/list", {});
    const tools = (listed.body.result?.tools ?? []) as {
      name: string;
      icons?: unknown;
      outputSchema?: unknown;
    }[];
    const tool = tools.find((t) => t.name === "test_rich_result");
    expect(tool?.outputSchema).toBeDefined();
    expect(tool?.icons).toBeUndefined();
    await session.close();
  });

  it("gives a 2026-07-28 client everything, statelessly, with nothing lost", async () => {
    const answer = await modernRequest(mcp, "tools/call", { name: "test_rich_result", arguments: {} });
    expect(answer.status).toBe(200);
    const result = answer.body.result as { content: { type: string }[]; resultType: string };
    expect(callToolResultValidator("2026-07-28")(result)).toEqual([]);
    expect(result.resultType).toBe("complete");
    expect(result.content.map((c) => c.type)).toEqual(["text", "audio", "resource_link"]);
    const event = await eventFor("2026-07-28");
    expect(event.translation?.client).toMatchObject({ protocol: "mcp", method: "tools/call" });
    expect(event.translation?.notes).toEqual([]);
  });

  it("relays an input_required round trip through a 2026-07-28 forward, in both eras", async () => {
    // Stateless client: the upstream's keyed request comes back under the router's sealed state.
    const first = await modernRequest(
      mcp,
      "tools/call",
      { name: "test_input_required_result_elicitation", arguments: {} },
      { capabilities: { elicitation: {} } },
    );
    expect(first.body.result?.resultType).toBe("input_required");
    const requests = first.body.result?.inputRequests as Record<string, { method: string }>;
    expect(requests.user_name?.method).toBe("elicitation/create");
    const second = await modernRequest(
      mcp,
      "tools/call",
      {
        name: "test_input_required_result_elicitation",
        arguments: {},
        inputResponses: { user_name: { action: "accept", content: { name: "Ada" } } },
        requestState: first.body.result?.requestState,
      },
      { capabilities: { elicitation: {} } },
    );
    expect(second.body.result?.resultType).toBe("complete");
    expect(JSON.stringify(second.body.result?.content)).toContain("Ada");

    // Session client: the router asks it on the call's stream and repeats the call with its answer.
    const session = await openLegacySession(mcp, "2025-11-25", { elicitation: {} });
    const answered = await session.requestAnswering(
      "tools/call",
      { name: "test_input_required_result_elicitation", arguments: {} },
      () => ({ action: "accept", content: { name: "Grace" } }),
    );
    expect(answered.serverRequests.map((r) => r.method)).toEqual(["elicitation/create"]);
    expect(JSON.stringify(answered.body.result?.content)).toContain("Grace");
    await session.close();
  });

  it("relays a legacy upstream's sampling request during a call, in both eras", async () => {
    // Stateless client: the call is held while the client answers input_required.
    const first = await modernRequest(
      mcp,
      "tools/call",
      { name: "legacy_test_sampling_request", arguments: { question: "Capital of France?" } },
      { capabilities: { sampling: {} } },
    );
    expect(first.body.result?.resultType).toBe("input_required");
    const [key, request] =
      Object.entries(first.body.result?.inputRequests as Record<string, { method: string }>)[0] ?? [];
    expect(request?.method).toBe("sampling/createMessage");
    const second = await modernRequest(
      mcp,
      "tools/call",
      {
        name: "legacy_test_sampling_request",
        arguments: { question: "Capital of France?" },
        inputResponses: {
          [key as string]: {
            role: "assistant",
            content: { type: "text", text: "Paris" },
            model: "m",
            stopReason: "endTurn",
          },
        },
        requestState: first.body.result?.requestState,
      },
      { capabilities: { sampling: {} } },
    );
    expect(JSON.stringify(second.body.result?.content)).toContain("Paris");

    // Session client: the same question as a server-to-client request on the call's stream.
    const session = await openLegacySession(mcp, "2025-11-25", { sampling: {} });
    const answered = await session.requestAnswering(
      "tools/call",
      { name: "legacy_test_sampling_request", arguments: { question: "Capital of Italy?" } },
      () => ({
        role: "assistant",
        content: { type: "text", text: "Rome" },
        model: "m",
        stopReason: "endTurn",
      }),
    );
    expect(answered.serverRequests.map((r) => r.method)).toEqual(["sampling/createMessage"]);
    expect(JSON.stringify(answered.body.result?.content)).toContain("Rome");
    await session.close();
  });

  it("refuses input a client did not declare it can give (-32021), in both eras", async () => {
    const modern = await modernRequest(mcp, "tools/call", {
      name: "test_input_required_result_sampling",
      arguments: {},
    });
    expect(modern.status).toBe(400);
    expect(modern.body.error?.code).toBe(-32021);
    expect(modern.body.error?.data).toEqual({ requiredCapabilities: { sampling: {} } });
  });
});
