import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  CallToolResultSchema,
  ErrorCode,
  LoggingMessageNotificationSchema,
  McpError,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
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
  trestleCli,
} from "./support/processes.js";

const require = createRequire(import.meta.url);
const run = promisify(execFile);

/** The MCP transport's fixture server: a real SDK server with tools that sleep, crash, fail, leak and log. */
const FIXTURE_SERVER = join(repoRoot, "packages", "transport-mcp", "test", "fixtures", "fixture-server.mjs");
const ARGV_CANARY = "argv-canary-7f3a9c";
const ENV_CANARY = "env-canary-51d0e2";

function npmServer(pkg: "server-everything" | "server-filesystem"): string {
  return join(dirname(require.resolve(`@modelcontextprotocol/${pkg}/package.json`)), "dist", "index.js");
}

async function mcpClient(url: string, namespace = ""): Promise<Client> {
  const client = new Client({ name: "e2e-forwards", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${url}${namespace ? `/${namespace}` : ""}/mcp`)),
  );
  return client;
}

function texts(result: unknown): string[] {
  return ((result as { content: { type: string; text?: string }[] }).content ?? [])
    .filter((c) => c.type === "text")
    .map((c) => c.text as string);
}

interface ForwardView {
  name: string;
  namespace: string;
  service: string;
  upstream: Record<string, unknown>;
  status: {
    state: string;
    imported: { tools: number; resources: number; resourceTemplates: number; prompts: number };
    skipped: { kind: string; upstreamName: string; name?: string; reason: string }[];
    capabilities?: string[];
    error?: string;
  };
}

/** POSTs and returns the status and the whole envelope, whatever the status. */
async function post(url: string, path: string, body: unknown): Promise<{ status: number; text: string }> {
  const response = await fetch(`${url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: response.status, text: await response.text() };
}

function fixtureForward(name: string, extra: Record<string, unknown> = {}, args: string[] = []) {
  return {
    name,
    upstream: {
      kind: "stdio",
      command: process.execPath,
      args: [FIXTURE_SERVER, ...args, `--token=${ARGV_CANARY}`],
      env: { FIXTURE_SECRET: ENV_CANARY },
      // The fixture imports the MCP SDK from the workspace: its sandbox shows it the cwd.
      cwd: repoRoot,
    },
    ...extra,
  };
}

describe("MCP forwards: existing MCP servers behind the router", () => {
  let router: RouterProcess;
  let client: Client;
  const seen: string[] = [];
  let everythingHttp: RunningProcess | undefined;
  let root: string;

  beforeAll(async () => {
    router = await startRouter(["--log-level", "debug"]);
    root = mkdtempSync(join(tmpdir(), "trestle-e2e-forwards-"));
    writeFileSync(join(root, "notes.txt"), "first line\nsecond line\n");
  }, 90_000);

  afterAll(async () => {
    await client?.close();
    await stopAll();
    rmSync(root, { recursive: true, force: true });
  });

  it("imports a stdio server's tools, resources, templates and prompts with full schemas and a prefix", async () => {
    const added = await post(router.url, "/api/v1/forwards", fixtureForward("fixture", { prefix: "fx_" }));
    seen.push(added.text);
    expect(added.status).toBe(201);
    const view = (JSON.parse(added.text) as { data: ForwardView }).data;
    expect(view).toMatchObject({
      name: "fixture",
      namespace: "",
      service: "forward.fixture",
      upstream: { kind: "stdio", program: "node", argumentCount: 2, environment: ["FIXTURE_SECRET"] },
      status: { state: "ready", skipped: [] },
    });
    expect(view.status.imported.tools).toBeGreaterThan(10);
    expect(view.status.imported.resourceTemplates).toBe(1);
    expect(view.status.imported.prompts).toBe(1);

    client = await mcpClient(router.url);
    const { tools } = await client.listTools();
    const echo = tools.find((t) => t.name === "fx_echo");
    expect(echo?.inputSchema).toMatchObject({
      type: "object",
      properties: { text: { type: "string" } },
      required: ["text"],
    });
    expect(tools.every((t) => t.name.startsWith("fx_"))).toBe(true);
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.length).toBe(1);
    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual([expect.stringMatching(/^fx_/)]);
  });

  it("passes typed arguments through and brings every kind of content back", async () => {
    const typed = await client.callTool({
      name: "fx_describe_args",
      arguments: { count: 3, flag: true, nested: { list: [1, "two"] }, none: null, text: "x" },
    });
    expect(typed.isError).toBeFalsy();
    expect(JSON.parse(texts(typed)[0] as string).types).toMatchObject({
      count: "number",
      flag: "boolean",
      nested: "object",
      text: "string",
    });
    const mixed = await client.callTool({ name: "fx_mixed", arguments: {} });
    const kinds = (mixed.content as { type: string }[]).map((c) => c.type);
    expect(kinds).toEqual(expect.arrayContaining(["text", "image", "resource_link"]));
  });

  it("gives a forward's tool Wanaku's argument names as plain arguments, and records them as arguments", async () => {
    // Wanaku's conventions (wanaku_meta_* headers, wanaku_body) belong to the Wanaku transports: an MCP forward
    // gets the arguments as the client sent them, and the call's event shows them as arguments, not headers.
    const args = { wanaku_meta_trace: "t-1", wanaku_body: '{"q":1}', city: "Oslo" };
    const result = await client.callTool({ name: "fx_describe_args", arguments: args });
    expect(result.isError).toBeFalsy();
    expect(JSON.parse(texts(result)[0] as string).args).toEqual(args);
    const events = await api<{ type: string; arguments?: Record<string, string>; headers?: object }[]>(
      router.url,
      "GET",
      "/api/v2/tool-calls/history?toolName=fx_describe_args&limit=10",
    );
    const started = events.filter((e) => e.type === "started").at(-1);
    expect(started?.arguments).toEqual(args);
    expect(started?.headers).toEqual({});
  });

  it("brings image, audio, resource link, structured content and _meta back unchanged, no string encoding on the way", async () => {
    // What the fixture's `rich` tool answers (packages/transport-mcp/test/fixtures/fixture-server.mjs).
    const result = await client.callTool({ name: "fx_rich", arguments: {} });
    expect(result.content).toEqual([
      {
        type: "image",
        data: Buffer.from("png-bytes").toString("base64"),
        mimeType: "image/png",
        annotations: { audience: ["user"], priority: 0.5 },
      },
      { type: "audio", data: Buffer.from("wav-bytes").toString("base64"), mimeType: "audio/wav" },
      {
        type: "resource_link",
        uri: "fixture://text",
        name: "text",
        title: "The text resource",
        description: "Hello, as a resource",
        mimeType: "text/plain",
        size: 14,
        _meta: { "fixture/kind": "link" },
      },
      { type: "text", text: 'trestle:mcp-content:{"type":"image"}' },
    ]);
    expect(result.structuredContent).toEqual({ answer: 42, list: [1, "two", null, { deep: true }] });
    expect(result._meta).toMatchObject({ "fixture/trace": "abc" });
    expect(result.isError).toBeFalsy();
    // An earlier design carried non-text blocks as marker-prefixed JSON strings through the middle layers; the
    // call's events would show them. Only the upstream's own text block may look like one.
    const events = await api<unknown[]>(
      router.url,
      "GET",
      "/api/v2/tool-calls/history?toolName=fx_rich&limit=10",
    );
    expect(events.length).toBeGreaterThanOrEqual(2);
    expect(JSON.stringify(events)).not.toMatch(
      /trestle:mcp-content:\{\\?"type\\?":\\?"(image|audio|resource_link)\\?",/,
    );
  });

  it("reads resources and gets prompts from the upstream", async () => {
    const { resources } = await client.listResources();
    expect(resources.length).toBeGreaterThan(0);
    const first = resources[0] as { uri: string };
    const read = await client.readResource({ uri: first.uri });
    expect(read.contents[0]?.uri).toBe(first.uri);
    const { prompts } = await client.listPrompts();
    const prompt = prompts[0] as { name: string; arguments?: { name: string }[] };
    const args = Object.fromEntries((prompt.arguments ?? []).map((a) => [a.name, "value"]));
    const got = await client.getPrompt({ name: prompt.name, arguments: args });
    expect(got.messages.length).toBeGreaterThan(0);
  });

  it("relays the upstream's progress to the client", async () => {
    const progress: number[] = [];
    const result = await client.callTool(
      { name: "fx_progress", arguments: { steps: 3 } },
      CallToolResultSchema,
      {
        onprogress: (p) => progress.push(p.progress),
      },
    );
    expect(result.isError).toBeFalsy();
    expect(progress.length).toBeGreaterThanOrEqual(2);
  });

  it("turns an isError result, a JSON-RPC error and a crash into tool errors of one sentence", async () => {
    const failed = await client.callTool({ name: "fx_fail", arguments: { message: "no such city" } });
    expect(failed.isError).toBe(true);
    expect(texts(failed).join(" ")).toContain("no such city");
    const rpc = await client.callTool({ name: "fx_jsonrpc_error", arguments: {} });
    expect(rpc.isError).toBe(true);
    expect(texts(rpc).join(" ")).toMatch(/error -32/);
  });

  it("restarts a stdio server that crashed on the next call", async () => {
    // Which process answers: its pid is the same in every sandbox (each has a PID namespace of its own).
    const before = await client.callTool({ name: "fx_instance", arguments: {} });
    const instance = texts(before)[0];
    expect(instance).toMatch(/^[0-9a-f-]{36}$/);
    const crashed = await client.callTool({ name: "fx_crash", arguments: {} });
    expect(crashed.isError).toBe(true);
    expect(texts(crashed).join(" ")).toContain("'node'");
    const after = await eventually(
      async () => {
        const r = await client.callTool({ name: "fx_instance", arguments: {} });
        return r.isError ? undefined : texts(r)[0];
      },
      15_000,
      "a restarted server",
    );
    expect(after).not.toBe(instance);
  });

  it("serves 100 concurrent calls to one stdio forward at once, not one after the other", async () => {
    const sleepMs = 300;
    const started = performance.now();
    const results = await Promise.all(
      Array.from({ length: 100 }, () => client.callTool({ name: "fx_sleep", arguments: { ms: sleepMs } })),
    );
    const elapsed = performance.now() - started;
    expect(results.filter((r) => r.isError)).toEqual([]);
    console.log(
      `100 concurrent calls of a ${sleepMs} ms tool on one stdio forward: ${Math.round(elapsed)} ms`,
    );
    // Serialised they would take 100 × 300 ms = 30 s.
    expect(elapsed).toBeLessThan(10_000);
  });

  it("records STARTED and COMPLETED/FAILED events for forwarded calls as for gRPC-routed ones", async () => {
    const history = await api<{ type: string; toolName: string }[]>(
      router.url,
      "GET",
      "/api/v2/tool-calls/history?toolName=fx_fail&limit=10",
    );
    expect(history.map((e) => e.type)).toEqual(expect.arrayContaining(["started", "failed"]));
    const ok = await api<{ type: string }[]>(
      router.url,
      "GET",
      "/api/v2/tool-calls/history?toolName=fx_echo&limit=10",
    );
    await client.callTool({ name: "fx_echo", arguments: { text: "hi" } });
    const after = await api<{ type: string }[]>(
      router.url,
      "GET",
      "/api/v2/tool-calls/history?toolName=fx_echo&limit=10",
    );
    expect(after.length - ok.length).toBe(2);
    expect(after.map((e) => e.type)).toEqual(expect.arrayContaining(["started", "completed"]));
  });

  it("re-imports when the upstream says its tool list changed, and tells the client", async () => {
    let notified = false;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      notified = true;
    });
    // Every fixture process of this forward adds a tool and sends tools/list_changed (the servers, not the
    // bubblewrap processes of their sandboxes, whose command lines hold theirs).
    await run("pkill", [
      "-USR2",
      "-f",
      `^${process.execPath} ${FIXTURE_SERVER} --token=${ARGV_CANARY}`,
    ]).catch(() => undefined);
    await eventually(
      async () => {
        const { tools } = await client.listTools();
        return tools.some((t) => t.name === "fx_signalled_0") ? true : undefined;
      },
      15_000,
      "the signalled tool imported",
    );
    await eventually(() => (notified ? true : undefined), 5_000, "tools/list_changed sent to the client");
  });

  it("reports collisions predictably and keeps what was there first", async () => {
    await api(router.url, "POST", "/api/v1/namespaces", { name: "mixed" });
    await api(router.url, "POST", "/api/v1/tools", {
      name: "fx_echo",
      uri: "https://example.test/echo",
      type: "http",
      namespace: "mixed",
    });
    const added = await post(
      router.url,
      "/api/v1/forwards",
      fixtureForward("fixture-mixed", { prefix: "fx_", namespace: "mixed" }),
    );
    seen.push(added.text);
    expect(added.status).toBe(201);
    const view = (JSON.parse(added.text) as { data: ForwardView }).data;
    expect(view.status.skipped).toEqual([
      expect.objectContaining({
        kind: "tool",
        upstreamName: "echo",
        name: "fx_echo",
        reason: expect.stringContaining("'http'"),
      }),
    ]);
    const tools = await api<{ name: string; type: string }[]>(
      router.url,
      "GET",
      "/api/v1/tools?namespace=mixed",
    );
    expect(tools.find((t) => t.name === "fx_echo")?.type).toBe("http");
    expect(tools.filter((t) => t.type === "forward.mixed.fixture-mixed").length).toBe(
      view.status.imported.tools,
    );
  });

  it("changes a forward's upstream or prefix in place, and changes nothing when the new upstream fails", async () => {
    const put = async (body: unknown) => {
      const response = await fetch(`${router.url}/api/v1/forwards/fixture-mixed?namespace=mixed`, {
        method: "PUT",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      return { status: response.status, text: await response.text() };
    };
    const broken = await put({
      name: "fixture-mixed",
      namespace: "mixed",
      prefix: "mx_",
      upstream: { kind: "stdio", command: "/nonexistent/mcp-server", args: [`--token=${ARGV_CANARY}`] },
    });
    seen.push(broken.text);
    expect(broken.status).toBe(503);
    expect(JSON.parse(broken.text).error.message).toMatch(/^The forward 'fixture-mixed' was not changed/);
    let tools = await api<{ name: string; type: string }[]>(
      router.url,
      "GET",
      "/api/v1/tools?namespace=mixed",
    );
    expect(tools.some((t) => t.name === "fx_pid")).toBe(true);

    const changed = await put(fixtureForward("fixture-mixed", { prefix: "mx_", namespace: "mixed" }));
    seen.push(changed.text);
    expect(changed.status).toBe(200);
    tools = await api<{ name: string; type: string }[]>(router.url, "GET", "/api/v1/tools?namespace=mixed");
    const mine = tools.filter((t) => t.type === "forward.mixed.fixture-mixed").map((t) => t.name);
    expect(mine.length).toBeGreaterThan(10);
    expect(mine.every((n) => n.startsWith("mx_"))).toBe(true);
    // The tool that was there first is still there, and no longer collides.
    expect(tools.find((t) => t.name === "fx_echo")?.type).toBe("http");
    expect((JSON.parse(changed.text).data as ForwardView).status.skipped).toEqual([]);
  });

  it("advertises only what every forward's upstream offers, and refuses the rest with -32601", async () => {
    await api(router.url, "POST", "/api/v1/namespaces", { name: "files" });
    const added = await post(router.url, "/api/v1/forwards", {
      name: "files",
      namespace: "files",
      upstream: {
        kind: "stdio",
        command: process.execPath,
        args: [npmServer("server-filesystem"), root],
        cwd: repoRoot,
      },
    });
    expect(added.status).toBe(201);
    const files = await mcpClient(router.url, "files");
    try {
      expect(files.getServerCapabilities()?.resources).toBeUndefined();
      expect(files.getServerCapabilities()?.prompts).toBeUndefined();
      expect(files.getServerCapabilities()?.tools).toBeDefined();
      const refused = await files.listResources().catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(McpError);
      expect((refused as McpError).code).toBe(ErrorCode.MethodNotFound);
      expect((refused as McpError).message).toContain("resources/list");
      const read = await files.callTool({
        name: "read_text_file",
        arguments: { path: join(root, "notes.txt"), head: 1 },
      });
      expect(texts(read)).toEqual(["first line"]);
    } finally {
      await files.close();
    }
  });

  it("fronts @modelcontextprotocol/server-everything over stdio and over Streamable HTTP", async () => {
    await api(router.url, "POST", "/api/v1/namespaces", { name: "everything" });
    const stdio = await post(router.url, "/api/v1/forwards", {
      name: "stdio",
      namespace: "everything",
      prefix: "s_",
      upstream: {
        kind: "stdio",
        command: process.execPath,
        args: [npmServer("server-everything"), "stdio"],
        cwd: repoRoot,
      },
    });
    expect(stdio.status).toBe(201);

    const port = await freePort();
    everythingHttp = startNode(npmServer("server-everything"), ["streamableHttp"], { PORT: String(port) });
    await everythingHttp.waitForLine((l) => /listening on port/i.test(l), 30_000);
    const http = await post(router.url, "/api/v1/forwards", {
      name: "http",
      namespace: "everything",
      prefix: "h_",
      upstream: {
        kind: "http",
        url: `http://127.0.0.1:${port}/mcp`,
        headers: { authorization: `Bearer ${ARGV_CANARY}` },
      },
    });
    expect(http.status).toBe(201);
    seen.push(stdio.text, http.text);

    const everything = await mcpClient(router.url, "everything");
    try {
      const { tools } = await everything.listTools();
      const names = tools.map((t) => t.name);
      const sum = names.find((n) => /^s_.*sum$/.test(n)) as string;
      const httpSum = names.find((n) => /^h_.*sum$/.test(n)) as string;
      expect(sum).toBeDefined();
      expect(httpSum).toBeDefined();
      for (const name of [sum, httpSum]) {
        const result = await everything.callTool({ name, arguments: { a: 2, b: 40 } });
        expect(result.isError).toBeFalsy();
        expect(texts(result).join(" ")).toContain("42");
      }
      const { resources } = await everything.listResources();
      const uri = (resources.find((r) => r.uri.startsWith("demo://")) ?? resources[0])?.uri as string;
      const read = await everything.readResource({ uri });
      expect(read.contents.length).toBeGreaterThan(0);
    } finally {
      await everything.close();
    }
  });

  it("refuses a server that will not start with one sentence, and saves nothing", async () => {
    const missing = await post(router.url, "/api/v1/forwards", {
      name: "missing",
      upstream: { kind: "stdio", command: "/nonexistent/bin/mcp-server", args: [`--token=${ARGV_CANARY}`] },
    });
    seen.push(missing.text);
    expect(missing.status).toBe(503);
    expect(JSON.parse(missing.text).error.message).toMatch(
      /^The forward 'missing' was not added: The MCP server 'mcp-server' could not be started/,
    );
    const exits = await post(
      router.url,
      "/api/v1/forwards",
      fixtureForward("exits", {}, ["--mode=exit-at-start"]),
    );
    seen.push(exits.text);
    expect(exits.status).toBe(503);
    // The program's own last words come with it (its argv and environment scrubbed: `seen` is checked for them).
    expect(JSON.parse(exits.text).error.message).toMatch(
      /The MCP server 'node' exited before completing the MCP handshake; its last lines on stderr: "fatal: cannot start with /,
    );
    const forwards = await api<ForwardView[]>(router.url, "GET", "/api/v1/forwards?namespace=*");
    expect(forwards.map((f) => f.name)).not.toContain("missing");
    expect(forwards.map((f) => f.name)).not.toContain("exits");

    const bad = await post(router.url, "/api/v1/forwards", { name: "bad name", upstream: { kind: "ftp" } });
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.text).error.message).toMatch(/name:.*upstream/s);
  });

  it("adds, lists, refreshes and removes forwards with the CLI, removing what they imported", async () => {
    const cli = (...args: string[]) => run(process.execPath, [trestleCli, "--url", router.url, ...args]);
    const added = await cli(
      "forwards",
      "add",
      "cli-fixture",
      "--namespace",
      "mixed",
      "--prefix",
      "c_",
      "--env",
      `FIXTURE_SECRET=${ENV_CANARY}`,
      "--cwd",
      repoRoot,
      "--",
      process.execPath,
      FIXTURE_SERVER,
      `--token=${ARGV_CANARY}`,
    );
    seen.push(added.stdout, added.stderr);
    expect(added.stdout).toContain("cli-fixture");
    const listed = await cli("forwards", "list", "--namespace", "*");
    seen.push(listed.stdout);
    expect(listed.stdout).toMatch(/cli-fixture\s+mixed\s+ready/);
    const refreshed = await cli("forwards", "refresh", "cli-fixture", "--namespace", "mixed");
    expect(refreshed.stdout).toContain("cli-fixture");
    const updated = await cli(
      "forwards",
      "update",
      "cli-fixture",
      "--namespace",
      "mixed",
      "--prefix",
      "c_",
      "--mode",
      "per-call",
      "--cwd",
      repoRoot,
      "--",
      process.execPath,
      FIXTURE_SERVER,
      `--token=${ARGV_CANARY}`,
    );
    seen.push(updated.stdout, updated.stderr);
    const shown = await cli("forwards", "show", "cli-fixture", "--namespace", "mixed", "--json");
    expect(JSON.parse(shown.stdout).upstream).toMatchObject({
      program: "node",
      mode: "per-call",
      environment: [],
    });
    const before = await api<{ name: string }[]>(router.url, "GET", "/api/v1/tools?namespace=mixed");
    expect(before.some((t) => t.name === "c_echo")).toBe(true);
    expect(before.some((t) => t.name === "mx_echo")).toBe(true);
    await cli("forwards", "remove", "cli-fixture", "--namespace", "mixed");
    const after = await api<{ name: string }[]>(router.url, "GET", "/api/v1/tools?namespace=mixed");
    expect(after.some((t) => t.name.startsWith("c_"))).toBe(false);
    expect(after.some((t) => t.name === "fx_echo")).toBe(true);
  });

  it("relays the logging messages of a server spawned per call, its argv and environment scrubbed", async () => {
    const added = await post(router.url, "/api/v1/forwards", {
      ...fixtureForward("per-call", { prefix: "pc_" }),
      upstream: { ...fixtureForward("x").upstream, mode: "per-call" },
    });
    seen.push(added.text);
    expect(added.status).toBe(201);
    const messages: { level: string; data: unknown }[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      messages.push(n.params);
    });
    await client.setLoggingLevel("debug");
    const instances = new Set<string>();
    for (let i = 0; i < 2; i++) {
      const logged = await client.callTool({ name: "pc_log", arguments: {} });
      expect(texts(logged)).toEqual(["logged"]);
      instances.add(texts(await client.callTool({ name: "pc_instance", arguments: {} }))[0] as string);
    }
    // A process per call.
    expect(instances.size).toBe(2);
    expect(messages.length).toBeGreaterThanOrEqual(2);
    expect(JSON.stringify(messages)).toContain("argv=");
    seen.push(JSON.stringify(messages));
  });

  it("never lets a secret of an argv, environment or header reach an error, event, log or answer", async () => {
    // Tools that put their argv and environment into an error and into an isError result.
    for (const name of ["fx_leak", "fx_leak_is_error"]) {
      const result = await client.callTool({ name, arguments: {} });
      expect(result.isError).toBe(true);
      seen.push(JSON.stringify(result));
    }
    const events = await api(router.url, "GET", "/api/v2/tool-calls/history?limit=1000");
    const forwards = await api(router.url, "GET", "/api/v1/forwards?namespace=*");
    seen.push(JSON.stringify(events), JSON.stringify(forwards));
    const everything = [...seen, ...router.lines].join("\n");
    expect(router.lines.length).toBeGreaterThan(10);
    for (const canary of [ARGV_CANARY, ENV_CANARY]) expect(everything).not.toContain(canary);
  });
});

async function freePort(): Promise<number> {
  const { createServer } = await import("node:net");
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (!address || typeof address === "string") throw new Error("no port");
  return address.port;
}
