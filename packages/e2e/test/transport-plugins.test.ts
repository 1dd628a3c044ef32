import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, serviceHealthy, startNode, startRouter, stopAll, trestleCli } from "./support/processes.js";

/**
 * `trestle serve` (the built CLI) loading transport plugins from `transportPluginDirectory`: plain ESM packages
 * written here, one that carries a real MCP tool call to a tiny HTTP service in this process, and one per way a
 * plugin can be unfit, each of which stops the start with one sentence naming the package.
 */

/** A plugin whose transport POSTs each tool call as JSON to `http://host:port/call` and returns the text back. */
const HTTP_PLUGIN = `
export const contractVersion = 1;
export const optionsSchema = {
  "~standard": {
    version: 1,
    vendor: "e2e",
    validate(value) {
      if (typeof value?.prefix !== "string")
        return { issues: [{ message: "expected a string", path: ["prefix"] }] };
      return { value };
    },
  },
};
const base = (target) => "http://" + target.host + ":" + target.port;
export default async function createTransport(options, context) {
  context.logger.info({ unary: context.unaryTimeoutMs }, "e2e plugin ready");
  return {
    async callTool(call, target, callOptions) {
      const response = await fetch(base(target) + "/call", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ tool: call.tool.name, arguments: call.arguments, metadata: callOptions?.metadata ?? {} }),
        signal: callOptions?.signal,
      });
      return { content: [{ type: "text", text: options.prefix + (await response.text()) }] };
    },
    async readResource() { throw new Error("no resources"); },
    async *executeCode() { throw new Error("no code"); },
    async provision() { throw new Error("no provisioning"); },
    async probeHealth(target) {
      const response = await fetch(base(target) + "/health");
      return { state: response.ok ? "healthy" : "down" };
    },
    async close() {},
  };
}
`;

const VALID_SCHEMA = `export const optionsSchema = { "~standard": { version: 1, vendor: "e2e", validate: (value) => ({ value }) } };`;

/** The unfit plugins: package name, main module, and what its one sentence must say. */
const UNFIT: { name: string; main: string; says: string }[] = [
  {
    name: "throws-on-import",
    main: `throw new Error("the licence file is missing");`,
    says: "threw: the licence file is missing",
  },
  {
    name: "no-contract-version",
    main: `${VALID_SCHEMA}\nexport default () => ({});`,
    says: "exports no contractVersion",
  },
  {
    name: "future-contract",
    main: `${VALID_SCHEMA}\nexport const contractVersion = 7;\nexport default () => ({});`,
    says: "written for plugin contract version 7, and this router supports 1",
  },
  {
    name: "factory-throws",
    main: `${VALID_SCHEMA}\nexport const contractVersion = 1;\nexport default async () => { throw new Error("no pool"); };`,
    says: "its factory threw: no pool",
  },
];

/** Writes `node_modules/<name>` under `dir` with an `exports` map to `main.js`. */
function writePlugin(dir: string, name: string, main: string): void {
  const pkg = join(dir, "node_modules", name);
  mkdirSync(pkg, { recursive: true });
  writeFileSync(
    join(pkg, "package.json"),
    JSON.stringify({ name, version: "1.0.0", type: "module", exports: { ".": "./main.js" } }),
  );
  writeFileSync(join(pkg, "main.js"), main);
}

/** Runs `trestle serve` until it exits; its exit code and every line it wrote. */
async function serveUntilExit(args: string[], env: Record<string, string>) {
  const proc = startNode(
    trestleCli,
    ["serve", "--port", "0", "--memory-store", "--log-level", "warn", ...args],
    env,
  );
  const code = await new Promise<number | null>((resolve) => {
    if (proc.child.exitCode !== null) resolve(proc.child.exitCode);
    proc.child.once("exit", (exitCode) => resolve(exitCode));
  });
  // The last output lines may still be in the pipes when the process exits.
  await new Promise((r) => setTimeout(r, 50));
  return { code, lines: proc.lines };
}

let dir: string;
let service: Server;
let servicePort: number;
const received: { tool: string; arguments: Record<string, unknown>; metadata: Record<string, string> }[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "trestle-e2e-plugins-"));
  writePlugin(dir, "@e2e/http-plugin", HTTP_PLUGIN);
  for (const plugin of UNFIT) writePlugin(dir, plugin.name, plugin.main);
  service = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => {
      body += chunk;
    });
    req.on("end", () => {
      if (req.url === "/health") return void res.end("ok");
      const call = JSON.parse(body) as (typeof received)[number];
      received.push(call);
      res.end(`hello ${String(call.arguments.city)}`);
    });
  });
  await new Promise<void>((resolve) => service.listen(0, "127.0.0.1", resolve));
  servicePort = (service.address() as { port: number }).port;
});

afterAll(async () => {
  await stopAll();
  await new Promise((resolve) => service.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

describe("trestle serve with transport plugins", () => {
  it("routes an MCP tools/call through a plugin loaded from transportPluginDirectory", async () => {
    const router = await startRouter([], {
      TRESTLE_TRANSPORT_PLUGIN_DIR: dir,
      TRESTLE_TRANSPORTS: JSON.stringify({
        "e2e-http": { package: "@e2e/http-plugin", options: { prefix: "via plugin: " } },
      }),
      // The service's own call secret reaches it through the plugin, in the call's metadata.
      TRESTLE_SERVICES: JSON.stringify({ greeter: { callSecret: "greeter-secret-0123456789" } }),
    });
    expect(
      router.lines.some((l) => l.includes('"e2e plugin ready"') && l.includes('"protocol":"e2e-http"')),
    ).toBe(true);
    await api(router.url, "POST", "/api/v1/management/discovery", {
      serviceName: "greeter",
      host: "127.0.0.1",
      port: servicePort,
      serviceType: "tool-invoker",
      protocol: "e2e-http",
    });
    await api(router.url, "POST", "/api/v1/tools", {
      name: "greet",
      description: "Greets a city",
      uri: "greeter://greet",
      type: "greeter",
      inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    });
    await serviceHealthy(router.url, "greeter");
    const client = new Client({ name: "e2e-plugins", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${router.url}/mcp`)));
    const result = await client.callTool({ name: "greet", arguments: { city: "Oslo" } });
    await client.close();
    expect(result.isError).toBeFalsy();
    expect(result.content).toEqual([{ type: "text", text: "via plugin: hello Oslo" }]);
    expect(received.at(-1)?.arguments).toEqual({ city: "Oslo" });
    expect(received.at(-1)?.metadata["x-trestle-capability-secret"]).toBe("greeter-secret-0123456789");
    expect(await router.stop()).toBe(0);
  }, 60_000);

  it("stops with one sentence naming a package that is not installed (--transport flag)", async () => {
    const { code, lines } = await serveUntilExit(["--transport", "soap=not-installed-transport"], {
      TRESTLE_TRANSPORT_PLUGIN_DIR: dir,
    });
    expect(code).not.toBe(0);
    const said = lines.filter((l) => l.startsWith("trestle: "));
    expect(said).toHaveLength(1);
    expect(said[0]).toContain("transport plugin not-installed-transport (transports.soap)");
    expect(said[0]).toContain(`npm install --prefix ${dir} not-installed-transport`);
    expect(lines.some((l) => /^\s+at /.test(l))).toBe(false);
  }, 30_000);

  it("stops --workers before forking any, with the same sentence", async () => {
    const { code, lines } = await serveUntilExit(
      [
        "--workers",
        "2",
        "--database-url",
        "postgres://127.0.0.1:1/none",
        "--transport",
        "soap=not-installed",
      ],
      { TRESTLE_TRANSPORT_PLUGIN_DIR: dir },
    );
    expect(code).toBe(1);
    expect(lines.filter((l) => l.startsWith("trestle: "))).toEqual([
      expect.stringContaining("transport plugin not-installed (transports.soap) cannot be loaded"),
    ]);
    expect(lines.some((l) => l.includes("worker"))).toBe(false);
  }, 30_000);

  it("stops with one sentence naming a plugin whose options fail its schema", async () => {
    const { code, lines } = await serveUntilExit([], {
      TRESTLE_TRANSPORT_PLUGIN_DIR: dir,
      TRESTLE_TRANSPORTS: JSON.stringify({
        "e2e-http": { package: "@e2e/http-plugin", options: { prefix: 3 } },
      }),
    });
    expect(code).not.toBe(0);
    const said = lines.filter((l) => l.startsWith("trestle: "));
    expect(said).toEqual([
      "trestle: transport plugin @e2e/http-plugin (transports.e2e-http) cannot be loaded: its options do not fit its schema: options.prefix: expected a string",
    ]);
  }, 30_000);

  it("stops with one sentence when a service's protocol names no transport (no plugin configured for it)", async () => {
    const { code, lines } = await serveUntilExit([], {
      TRESTLE_SERVICES: JSON.stringify({ weather: { protocol: "kafka" } }),
    });
    expect(code).toBe(1);
    const said = lines.filter((l) => l.startsWith("trestle: "));
    expect(said).toHaveLength(1);
    expect(said[0]).toContain("services.weather.protocol names 'kafka', which no transport speaks");
    expect(said[0]).toContain("known: grpc, connect, mcp, a2a");
    expect(lines.some((l) => /^\s+at /.test(l))).toBe(false);
  }, 30_000);

  it.each(UNFIT)(
    "stops with one sentence naming $name",
    async ({ name, says }) => {
      const { code, lines } = await serveUntilExit([], {
        TRESTLE_TRANSPORT_PLUGIN_DIR: dir,
        TRESTLE_TRANSPORTS: JSON.stringify({ unfit: { package: name } }),
      });
      expect(code).not.toBe(0);
      const said = lines.filter((l) => l.startsWith("trestle: "));
      expect(said).toHaveLength(1);
      expect(said[0]).toContain(`transport plugin ${name} (transports.unfit)`);
      expect(said[0]).toContain(says);
      expect(lines.some((l) => /^\s+at /.test(l))).toBe(false);
    },
    30_000,
  );
});
