import { randomUUID } from "node:crypto";
import { Code, type TrestleError } from "@trestle/core";
import { afterEach, describe, expect, it } from "vitest";
import {
  createMcpTransport,
  listUpstreamCatalog,
  type McpListKind,
  type UpstreamCatalog,
  type UpstreamCatalogWatch,
  watchUpstreamCatalog,
} from "../src/index.js";
import {
  alive,
  eventually,
  fixtureUpstream,
  mcpTarget,
  pidsWithArgument,
  type RunningServer,
  rejection,
  startFixtureHttp,
  toolCall,
} from "./support/upstreams.js";

describe("listUpstreamCatalog", () => {
  it("follows every page of every list", async () => {
    const catalog = await listUpstreamCatalog(fixtureUpstream(["--page-size=2"]));
    expect(catalog.serverInfo).toEqual({ name: "trestle-fixture", version: "1.0.0" });
    expect(catalog.tools.map((t) => t.name)).toContain("add_tool");
    expect(catalog.tools).toHaveLength(18);
    expect(catalog.resources).toHaveLength(7);
    expect(catalog.resourceTemplates).toEqual([{ uriTemplate: "fixture://item/{id}", name: "item" }]);
    expect(catalog.prompts).toEqual([{ name: "greet", arguments: [{ name: "who", required: true }] }]);
    expect(catalog.tools.find((t) => t.name === "echo")?.inputSchema).toEqual({
      type: "object",
      properties: { text: { type: "string" } },
      required: ["text"],
    });
  });

  it("does not ask a server for lists it does not advertise", async () => {
    const catalog = await listUpstreamCatalog(fixtureUpstream(["--no-resources"]));
    expect(catalog.capabilities).toEqual({ tools: { listChanged: true }, logging: {} });
    expect(catalog.resources).toEqual([]);
    expect(catalog.resourceTemplates).toEqual([]);
    expect(catalog.prompts).toEqual([]);
  });

  it("ends the server process when done", async () => {
    const marker = `--marker=${randomUUID()}`;
    await listUpstreamCatalog(fixtureUpstream([marker]));
    expect(pidsWithArgument(marker)).toEqual([]);
  });

  it("fails within its deadline", async () => {
    const error = await rejection(
      listUpstreamCatalog(fixtureUpstream(["--mode=silent"]), { timeoutMs: 300, handshakeTimeoutMs: 5_000 }),
    );
    expect(error.code).toBe(Code.DeadlineExceeded);
  });
});

describe("watchUpstreamCatalog", () => {
  let watch: UpstreamCatalogWatch | undefined;
  let http: RunningServer | undefined;
  const changes: { catalog: UpstreamCatalog; changed: McpListKind[] }[] = [];
  const errors: TrestleError[] = [];
  const onChange = (catalog: UpstreamCatalog, changed: McpListKind[]) => changes.push({ catalog, changed });
  const onError = (error: TrestleError) => errors.push(error);

  afterEach(async () => {
    await watch?.close();
    await http?.stop();
    watch = undefined;
    http = undefined;
    changes.length = 0;
    errors.length = 0;
  });

  it("gives a slow first start its start timeout, apart from the listing deadline and the handshake timeout", async () => {
    // A first `npx -y` run downloads the server before it answers: here 1.5 s of silence, longer than both
    // the listing deadline and the handshake timeout of later connections.
    watch = await watchUpstreamCatalog(fixtureUpstream(["--start-delay=1500"]), {
      onChange,
      onError,
      startTimeoutMs: 20_000,
      handshakeTimeoutMs: 1_000,
      timeoutMs: 1_000,
    });
    expect(watch.catalog.tools.length).toBeGreaterThan(0);
  });

  it("fails a first start that outlives its start timeout, naming the timeout", async () => {
    const error = await rejection(
      watchUpstreamCatalog(fixtureUpstream(["--start-delay=5000"]), {
        onChange,
        startTimeoutMs: 1_000,
        timeoutMs: 30_000,
      }),
    );
    // On a loaded machine the era probe may end before its own deadline and the fallback's initialize times out
    // instead: either way the failure names the server and a timeout, and comes well before the 5 s start delay.
    expect(error.rawMessage).toMatch(
      /^The MCP server 'node' did not (complete the MCP handshake within \d+ ms \(startTimeoutMs on a first start, handshakeTimeoutMs after it: raise it for a server that starts slowly\)|answer initialize within \d+ ms)$/,
    );
  });

  it("lists again when a stdio server says its tools changed", async () => {
    const marker = `--marker=${randomUUID()}`;
    watch = await watchUpstreamCatalog(fixtureUpstream([marker]), { onChange, onError });
    expect(watch.catalog.tools.some((t) => t.name === "signalled_0")).toBe(false);
    const [pid] = pidsWithArgument(marker);
    process.kill(pid as number, "SIGUSR2");
    await eventually(() => changes.length > 0);
    expect(changes[0]?.changed).toEqual(["tools"]);
    expect(changes[0]?.catalog.tools.some((t) => t.name === "signalled_0")).toBe(true);
    expect(watch.catalog).toBe(changes[0]?.catalog);
  });

  it("reconnects to a stdio server that died and reports its catalog again", async () => {
    const marker = `--marker=${randomUUID()}`;
    watch = await watchUpstreamCatalog(fixtureUpstream([marker]), {
      onChange,
      onError,
      reconnectDelayMs: 50,
    });
    const [first] = pidsWithArgument(marker);
    process.kill(first as number, "SIGKILL");
    await eventually(() => changes.length > 0);
    expect(changes[0]?.changed).toEqual(["tools", "resources", "prompts"]);
    const [second] = pidsWithArgument(marker);
    expect(second).not.toBe(first);
    await watch.close();
    await eventually(() => !alive(second as number));
  });

  it("hears list_changed over Streamable HTTP, and refresh() lists on demand", async () => {
    http = await startFixtureHttp();
    watch = await watchUpstreamCatalog(http.upstream, { onChange, onError });
    const before = watch.catalog.tools.length;
    // Another client's call makes the server add a tool and notify every session, the watch's among them.
    const transport = createMcpTransport({ upstreamFor: () => http?.upstream });
    try {
      await transport.callTool(toolCall("add_tool", { name: "added_over_http" }), mcpTarget());
    } finally {
      await transport.close();
    }
    await eventually(() => changes.length > 0);
    expect(changes[0]?.changed).toEqual(["tools"]);
    expect(changes[0]?.catalog.tools.map((t) => t.name)).toContain("added_over_http");
    expect((await watch.refresh()).tools).toHaveLength(before + 1);
  });
});
