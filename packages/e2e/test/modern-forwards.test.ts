import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  api,
  eventually,
  type RouterProcess,
  type RunningProcess,
  repoRoot,
  startNode,
  startRouter,
  stopAll,
} from "./support/processes.js";

/** The dual-era fixture upstream: MCP 2026-07-28 (stateless, input_required) and the legacy revisions. */
const MODERN_FIXTURE = join(repoRoot, "packages", "e2e", "fixtures", "modern-mcp-server.mjs");

interface ForwardView {
  name: string;
  status: { state: string; imported: { tools: number; prompts: number; resources: number }; error?: string };
}

function texts(result: unknown): string[] {
  return ((result as { content: { type: string; text?: string }[] }).content ?? [])
    .filter((c) => c.type === "text")
    .map((c) => c.text as string);
}

/** Starts the fixture over Streamable HTTP and returns its URL. */
async function startHttpFixture(args: string[] = []): Promise<{ process: RunningProcess; url: string }> {
  const process = startNode(MODERN_FIXTURE, ["--http", ...args]);
  const line = await process.waitForLine((l) => l.includes('"ready"'), 30_000);
  return { process, url: (JSON.parse(line) as { url: string }).url };
}

describe("forwards to MCP 2026-07-28 upstreams (the transport speaks the upstream's era)", () => {
  let router: RouterProcess;
  let client: Client;

  beforeAll(async () => {
    router = await startRouter();
    const modern = await startHttpFixture();
    const legacy = await startHttpFixture(["--legacy-only"]);
    for (const [name, prefix, upstream] of [
      ["modern-http", "mh_", { kind: "http", url: modern.url }],
      [
        "modern-stdio",
        "ms_",
        { kind: "stdio", command: process.execPath, args: [MODERN_FIXTURE], cwd: repoRoot },
      ],
      ["legacy-http", "lh_", { kind: "http", url: legacy.url }],
      [
        "legacy-stdio",
        "ls_",
        { kind: "stdio", command: process.execPath, args: [MODERN_FIXTURE, "--legacy-only"], cwd: repoRoot },
      ],
    ] as const) {
      const view = await api<ForwardView>(router.url, "POST", "/api/v1/forwards", { name, prefix, upstream });
      expect(view.status.state, view.status.error).toBe("ready");
      expect(view.status.imported.tools).toBeGreaterThan(10);
      expect(view.status.imported.prompts).toBe(1);
    }
    client = new Client({ name: "e2e-modern-forwards", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${router.url}/mcp`)));
  }, 120_000);

  afterAll(async () => {
    await client?.close();
    await stopAll();
  });

  it("imports each upstream's catalog, modern or legacy, over HTTP and stdio", async () => {
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    for (const prefix of ["mh_", "ms_", "lh_", "ls_"]) {
      expect(names).toContain(`${prefix}test_simple_text`);
      expect(names).toContain(`${prefix}test_input_required_result_elicitation`);
    }
    const rich = tools.find((t) => t.name === "mh_test_rich_result");
    expect(rich?.outputSchema).toMatchObject({ type: "object", required: ["temperature", "unit"] });
  });

  it("calls a modern upstream's tools from a legacy client, over HTTP and stdio", async () => {
    for (const prefix of ["mh_", "ms_", "lh_", "ls_"]) {
      const result = await client.callTool({ name: `${prefix}test_simple_text`, arguments: {} });
      expect(result.isError, `${prefix}: ${texts(result)}`).toBeFalsy();
      expect(texts(result)).toEqual(["This is a simple text response for testing."]);
    }
    const rich = await client.callTool({ name: "mh_test_rich_result", arguments: {} });
    expect(rich.structuredContent).toEqual({ temperature: 21.5, unit: "celsius" });
  });

  it("sends a modern HTTP upstream the Mcp-Param headers its tool's schema asks for, and does not offer a tool with invalid marks", async () => {
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    expect(names).not.toContain("mh_test_invalid_header_mark");
    expect(names).toContain("ms_test_invalid_header_mark");
    // The fixture refuses (-32020) a call whose Mcp-Param-Region header does not match the argument.
    const result = await client.callTool({
      name: "mh_test_header_param",
      arguments: { region: "eu-west-1" },
    });
    expect(result.isError, texts(result).join(" ")).toBeFalsy();
    expect(texts(result)).toEqual(["region: eu-west-1; verbose: unset"]);
  });

  it("reads a modern upstream's resource", async () => {
    const read = await client.readResource({ uri: "fixture://modern/readme" });
    expect(read.contents[0]).toMatchObject({ text: "The modern fixture's read-me." });
  });

  it("hears a modern upstream's list change on subscriptions/listen and updates the router's catalog", async () => {
    const listed = async () => (await client.listTools()).tools.map((t) => t.name);
    const before = (await listed()).includes("mh_test_dynamic_tool");
    await client.callTool({ name: "mh_test_toggle_tool", arguments: {} });
    await eventually(
      async () => ((await listed()).includes("mh_test_dynamic_tool") !== before ? true : undefined),
      20_000,
      "the toggled tool in the router's catalog",
    );
  });
});
