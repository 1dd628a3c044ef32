import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { TransportPluginLogger } from "@trestle/core/plugin";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  loadTransportPlugins,
  SUPPORTED_TRANSPORT_CONTRACT_VERSIONS,
  TransportPluginError,
} from "../src/root/transport-plugins.js";

/** A plain ESM transport: answers every tool call with its options and context, records close. */
const TRANSPORT = `
export function makeTransport(options, context) {
  const transport = {
    closed: false,
    async callTool(call) {
      return { content: [{ type: "text", text: JSON.stringify({ options, protocol: context.protocol, unary: context.unaryTimeoutMs, tool: call.tool.name }) }] };
    },
    async readResource() { return { contents: [] }; },
    async *executeCode() {},
    async provision() { return {}; },
    async probeHealth() { return { state: "healthy" }; },
    async close() { transport.closed = true; globalThis.__closedPlugins = [...(globalThis.__closedPlugins ?? []), context.protocol]; },
  };
  context.logger.info({ protocol: context.protocol }, "plugin made");
  return transport;
}
`;

/** A hand-written Standard Schema: `greeting` must be a string; the output adds `checked: true`. */
const SCHEMA = `
export const optionsSchema = {
  "~standard": {
    version: 1,
    vendor: "fixture",
    validate(value) {
      if (typeof value?.greeting !== "string")
        return { issues: [{ message: "expected a string", path: [{ key: "greeting" }] }] };
      return { value: { ...value, checked: true } };
    },
  },
};
`;

/** Writes `node_modules/<name>` under `dir`: a package.json with `exports` and the given main module text. */
function writePackage(dir: string, name: string, main: string, exportsField: unknown = { ".": "./main.js" }) {
  const pkg = join(dir, "node_modules", name);
  mkdirSync(pkg, { recursive: true });
  writeFileSync(join(pkg, "package.json"), JSON.stringify({ name, type: "module", exports: exportsField }));
  writeFileSync(join(pkg, "transport.js"), TRANSPORT);
  writeFileSync(join(pkg, "main.js"), main);
}

const good = `import { makeTransport } from "./transport.js";
${SCHEMA}
export const contractVersion = 1;
export default async (options, context) => makeTransport(options, context);
`;

const logged: string[] = [];
const logger: TransportPluginLogger = {
  debug: () => undefined,
  info: (_fields, message) => logged.push(message),
  warn: () => undefined,
  error: () => undefined,
};

let dir: string;
let elsewhere: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "trestle-plugins-"));
  elsewhere = mkdtempSync(join(tmpdir(), "trestle-plugins-router-"));
  writePackage(dir, "good-transport", good);
  writePackage(dir, "@acme/scoped-transport", good, { ".": { import: "./main.js" }, "./other": "./x.js" });
  writePackage(dir, "throws-on-import", `throw new Error("cannot start: no licence\\nsecond line");\n`);
  writePackage(dir, "no-default", `${SCHEMA}\nexport const contractVersion = 1;\n`);
  writePackage(dir, "no-version", `${SCHEMA}\nexport default () => ({});\n`);
  writePackage(
    dir,
    "future-version",
    `${SCHEMA}\nexport const contractVersion = 99;\nexport default () => ({});\n`,
  );
  writePackage(dir, "no-schema", `export const contractVersion = 1;\nexport default () => ({});\n`);
  writePackage(
    dir,
    "factory-throws",
    `${SCHEMA}\nexport const contractVersion = 1;\nexport default async () => { throw new Error("pool exhausted"); };\n`,
  );
  writePackage(
    dir,
    "not-a-transport",
    `${SCHEMA}\nexport const contractVersion = 1;\nexport default () => ({});\n`,
  );
  writePackage(dir, "no-main-export", good, { "./sub": "./main.js" });
  // Installed beside "the router" (a file under `elsewhere`), not in the plugin directory.
  writePackage(elsewhere, "beside-router", good);
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  rmSync(elsewhere, { recursive: true, force: true });
});

const context = { unaryTimeoutMs: 1234, streamTimeoutMs: 5678 };

function load(transports: Record<string, { package: string; options?: unknown }>, pluginDirectory = dir) {
  return loadTransportPlugins({
    transports,
    pluginDirectory,
    routerUrl: pathToFileURL(join(elsewhere, "dist", "root", "transport-plugins.js")).href,
    context,
    loggerFor: () => logger,
  });
}

async function failure(transports: Record<string, { package: string; options?: unknown }>) {
  const error = await load(transports).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TransportPluginError);
  const message = (error as TransportPluginError).rawMessage;
  expect(message.split("\n")).toHaveLength(1);
  return message;
}

describe("loadTransportPlugins", () => {
  it("loads a plugin from the plugin directory: validated options, the router's context, a logger", async () => {
    const { echo } = await load({ echo: { package: "good-transport", options: { greeting: "hi" } } });
    if (!echo) throw new Error("no transport for echo");
    const result = await echo.callTool(
      { tool: { name: "t" }, arguments: {}, metadata: {} } as never,
      {} as never,
    );
    expect(JSON.parse((result.content[0] as { text: string }).text)).toEqual({
      options: { greeting: "hi", checked: true },
      protocol: "echo",
      unary: 1234,
      tool: "t",
    });
    expect(logged).toContain("plugin made");
  });

  it("honours the package's exports map (conditions, scoped names)", async () => {
    const loaded = await load({ scoped: { package: "@acme/scoped-transport", options: { greeting: "x" } } });
    expect(Object.keys(loaded)).toEqual(["scoped"]);
  });

  it("finds a package beside the router when the plugin directory lacks it", async () => {
    const loaded = await load({ near: { package: "beside-router", options: { greeting: "x" } } });
    expect(Object.keys(loaded)).toEqual(["near"]);
  });

  it("loads a package linked into the plugin directory from elsewhere (pnpm, npm link)", async () => {
    const linkedDir = join(dir, "linked");
    // Neither in the plugin directory nor beside the router: reachable only through the link.
    const outside = mkdtempSync(join(tmpdir(), "trestle-plugins-outside-"));
    writePackage(outside, "linked-transport", good);
    mkdirSync(join(linkedDir, "node_modules"), { recursive: true });
    symlinkSync(
      join(outside, "node_modules", "linked-transport"),
      join(linkedDir, "node_modules", "linked-transport"),
    );
    try {
      const loaded = await load(
        { linked: { package: "linked-transport", options: { greeting: "x" } } },
        linkedDir,
      );
      expect(Object.keys(loaded)).toEqual(["linked"]);
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it("says where it looked and how to install a package that is not there", async () => {
    const message = await failure({ x: { package: "missing-transport" } });
    expect(message).toContain("transport plugin missing-transport (transports.x)");
    expect(message).toContain(join(dir, "node_modules"));
    expect(message).toContain(`npm install --prefix ${dir} missing-transport`);
  });

  it("does not take a package from above the plugin directory", async () => {
    const nested = join(dir, "nested");
    mkdirSync(nested, { recursive: true });
    const error = await load({ x: { package: "good-transport", options: { greeting: "x" } } }, nested).then(
      () => undefined,
      (e: unknown) => e as TransportPluginError,
    );
    expect(error?.rawMessage).toContain("not installed");
  });

  it("quotes the first line of what the import threw", async () => {
    const message = await failure({ x: { package: "throws-on-import" } });
    expect(message).toContain("throws-on-import");
    expect(message).toContain("threw: cannot start: no licence");
    expect(message).not.toContain("second line");
  });

  it("refuses a package whose exports offer no main entry", async () => {
    expect(await failure({ x: { package: "no-main-export" } })).toContain("cannot be resolved");
  });

  it("refuses a module without the contract's shape, naming what is missing", async () => {
    expect(await failure({ x: { package: "no-default" } })).toContain("no default export that is a function");
    const version = await failure({ x: { package: "no-version" } });
    expect(version).toContain("exports no contractVersion");
    expect(version).toContain(`supports ${SUPPORTED_TRANSPORT_CONTRACT_VERSIONS.join(", ")}`);
    expect(await failure({ x: { package: "no-schema" } })).toContain("exports no optionsSchema");
    expect(await failure({ x: { package: "not-a-transport", options: { greeting: "x" } } })).toContain(
      "returned no transport",
    );
  });

  it("refuses a plugin written for a contract version this router does not support", async () => {
    expect(await failure({ x: { package: "future-version" } })).toContain(
      "written for plugin contract version 99, and this router supports 1",
    );
  });

  it("quotes the schema's issues with their paths", async () => {
    const message = await failure({ x: { package: "good-transport", options: { greeting: 5 } } });
    expect(message).toContain("options do not fit its schema: options.greeting: expected a string");
  });

  it("quotes the factory's error, and closes the plugins already made", async () => {
    (globalThis as { __closedPlugins?: string[] }).__closedPlugins = [];
    const message = await failure({
      first: { package: "good-transport", options: { greeting: "x" } },
      second: { package: "factory-throws", options: { greeting: "x" } },
    });
    expect(message).toContain("transport plugin factory-throws (transports.second)");
    expect(message).toContain("its factory threw: pool exhausted");
    expect((globalThis as { __closedPlugins?: string[] }).__closedPlugins).toEqual(["first"]);
  });

  it("loads nothing and looks nowhere without configured plugins", async () => {
    expect(await load({}, join(dir, "does-not-exist"))).toEqual({});
  });
});
