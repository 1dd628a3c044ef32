// pack-check's transport plugin step (called from scripts/pack-check.mjs): the worked example of
// docs/writing-a-transport.md, packed as the package a user would publish, installed globally beside the globally
// installed @trestle/server, and loaded by configuration:
//
//  1. packTransportPlugin: `pnpm pack` of examples/transport-http-json (@trestle/example-transport-http-json), so
//     that the tarball inspection and the @trestle scope's loopback registry cover it like the other packages.
//  2. checkTransportPlugin: `npm i -g` of it into the server's prefix; a JSON config file naming it under
//     `transports.http-json`; `<prefix>/bin/trestle serve --config ...`; the example's HTTP+JSON capability server
//     started from the installed package; registered with protocol `http-json`; one MCP tools/call through the
//     router that reaches it. Then one failure end to end: a plugin package that is not installed stops
//     `trestle serve` with one sentence naming it and a non-zero exit, before anything listens.
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export const PLUGIN_PACKAGE = "@trestle/example-transport-http-json";
const PROTOCOL = "http-json";
const MISSING_PACKAGE = "@trestle/no-such-transport";

/**
 * Packs the example plugin into `tarballs` and unpacks it under `scratch/unpacked`; returns the entry
 * pack-check.mjs keeps for every packed package ({ dir, tarball, packageDir, manifest }).
 */
export async function packTransportPlugin({ root, scratch, tarballs, run, CheckFailure }) {
  const cwd = join(root, "examples", "transport-http-json");
  const manifest = JSON.parse(readFileSync(join(cwd, "package.json"), "utf8"));
  if (manifest.name !== PLUGIN_PACKAGE || manifest.private)
    throw new CheckFailure(`examples/transport-http-json must be the publishable ${PLUGIN_PACKAGE}`);
  const { filename } = JSON.parse(
    await run("pnpm", ["pack", "--pack-destination", tarballs, "--json"], { cwd }),
  );
  const unpacked = join(scratch, "unpacked", "example-transport-http-json");
  mkdirSync(unpacked, { recursive: true });
  await run("tar", ["-xzf", filename, "-C", unpacked]);
  const packageDir = join(unpacked, "package");
  return {
    dir: "example-transport-http-json",
    tarball: filename,
    packageDir,
    manifest: JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8")),
  };
}

/** A child in its own process group with its stderr collected; `exited` resolves with its exit code. */
function startChild(command, args, { cwd, env }) {
  const child = spawn(command, args, { cwd, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  const output = { stdout: "", stderr: "" };
  child.stdout.on("data", (d) => {
    output.stdout += d;
  });
  child.stderr.on("data", (d) => {
    output.stderr += d;
  });
  const exited = new Promise((r) => child.on("exit", (code, signal) => r({ code, signal })));
  return { child, output, exited };
}

/** The program that runs the example's capability server from the installed package and prints its port. */
function capabilityProgram(installedEntry) {
  return `import { createHttpJsonCapabilityServer } from ${JSON.stringify(installedEntry)};
const server = createHttpJsonCapabilityServer({
  callTool: (call) => ({ content: [{ type: "text", text: "forecast for " + call.arguments.city + ": sunny" }] }),
});
const { port } = await server.listen();
console.log(JSON.stringify({ port }));
process.once("SIGTERM", () => server.close().then(() => process.exit(0)));
`;
}

/**
 * Installs the example plugin globally into `prefix` (where @trestle/server already is), serves a router configured
 * with it, routes one MCP tools/call through it to the example's capability server, then checks that a missing
 * plugin package stops `trestle serve` with one sentence.
 */
export async function checkTransportPlugin({
  prefix,
  scratch,
  registry,
  npm,
  mcp,
  within,
  until,
  tail,
  killGroup,
  CheckFailure,
}) {
  await npm(["install", "--global", "--prefix", prefix, PLUGIN_PACKAGE], registry, scratch);
  const installedEntry = join(
    prefix,
    "lib",
    "node_modules",
    ...PLUGIN_PACKAGE.split("/"),
    "dist",
    "index.js",
  );
  console.log(`installed ${PLUGIN_PACKAGE} globally beside @trestle/server`);

  const cwd = join(scratch, "serve-plugin");
  mkdirSync(cwd);
  const configFile = join(cwd, "trestle.json");
  writeFileSync(
    configFile,
    `${JSON.stringify({ transports: { [PROTOCOL]: { package: PLUGIN_PACKAGE, options: { unaryTimeoutMs: 5000 } } } }, null, 2)}\n`,
  );
  const trestle = join(prefix, "bin", "trestle");
  // Only what node and npm's shims need: no TRESTLE_* setting leaks in from this shell.
  const env = { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? cwd };
  const router = startChild(
    trestle,
    ["serve", "--config", configFile, "--memory-store", "--port", "0", "--log-level", "warn"],
    { cwd, env },
  );
  writeFileSync(join(cwd, "capability.mjs"), capabilityProgram(installedEntry));
  const capability = startChild(process.execPath, [join(cwd, "capability.mjs")], { cwd, env });
  try {
    const base = await within(
      Promise.race([
        until(
          () => /serving MCP at (http:\/\/\S+)\/mcp/.exec(router.output.stderr)?.[1],
          60_000,
          "trestle serve",
        ),
        router.exited.then(({ code }) => {
          throw new CheckFailure(
            `trestle serve with ${PLUGIN_PACKAGE} exited with ${code} before listening\n${tail(router.output.stderr)}`,
          );
        }),
      ]),
      65_000,
      () => `trestle serve with ${PLUGIN_PACKAGE} did not listen in 60 s\n${tail(router.output.stderr)}`,
    );
    console.log(`trestle serve loaded ${PLUGIN_PACKAGE} for protocol ${PROTOCOL} and listens at ${base}`);

    const port = await until(
      () => /\{"port":(\d+)\}/.exec(capability.output.stdout)?.[1],
      30_000,
      `the example's capability server from the installed package${tail(capability.output.stderr)}`,
    );
    const post = async (path, body) => {
      const response = await fetch(`${base}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(10_000),
      });
      if (!response.ok)
        throw new CheckFailure(`POST ${path}: HTTP ${response.status} ${await response.text()}`);
    };
    await post("/api/v1/management/discovery", {
      serviceName: "weather",
      host: "127.0.0.1",
      port: Number(port),
      serviceType: "tool-invoker",
      protocol: PROTOCOL,
    });
    await post("/api/v1/tools", {
      name: "forecast",
      description: "The forecast of a city",
      uri: "weather://forecast",
      type: "weather",
      inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    });
    await until(
      async () => {
        const response = await fetch(`${base}/api/v1/capabilities`, { signal: AbortSignal.timeout(10_000) });
        const { data } = await response.json();
        return data.some((s) => s.target.serviceName === "weather" && s.health === "healthy");
      },
      30_000,
      "the example's capability server healthy through the plugin's probe",
    );

    const endpoint = `${base}/mcp`;
    const init = await mcp(endpoint, {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "pack-check", version: "1" },
      },
    });
    const session = { id: init.sessionId, protocolVersion: init.result.protocolVersion };
    await mcp(endpoint, { jsonrpc: "2.0", method: "notifications/initialized" }, session);
    const { result } = await mcp(
      endpoint,
      {
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: "forecast", arguments: { city: "Oslo" } },
      },
      session,
    );
    const text = result.content?.[0]?.text;
    if (result.isError || text !== "forecast for Oslo: sunny")
      throw new CheckFailure(`tools/call through the ${PROTOCOL} plugin: ${JSON.stringify(result)}`);
    console.log(`MCP tools/call → router → ${PLUGIN_PACKAGE} → the example's capability server: "${text}"`);

    router.child.kill("SIGTERM");
    const { code } = await within(router.exited, 30_000, () => "trestle serve did not stop within 30 s");
    if (code !== 0)
      throw new CheckFailure(`trestle serve exited with ${code} on SIGTERM\n${tail(router.output.stderr)}`);
  } finally {
    killGroup(router.child.pid);
    killGroup(capability.child.pid);
  }

  // A plugin that is not installed: one sentence naming it, a non-zero exit, no stack.
  const missing = startChild(
    trestle,
    ["serve", "--memory-store", "--port", "0", "--transport", `soap=${MISSING_PACKAGE}`],
    { cwd, env },
  );
  try {
    const { code } = await within(
      missing.exited,
      60_000,
      () => `trestle serve with a missing plugin did not exit in 60 s`,
    );
    const said = missing.output.stderr.split("\n").filter((line) => line.startsWith("trestle: "));
    if (
      code === 0 ||
      said.length !== 1 ||
      !said[0].includes(
        `transport plugin ${MISSING_PACKAGE} (transports.soap) cannot be loaded: the package is not installed`,
      ) ||
      /^\s+at /m.test(missing.output.stderr)
    )
      throw new CheckFailure(
        `trestle serve with a missing plugin exited ${code}, not with one sentence naming it:\n${tail(missing.output.stderr)}`,
      );
    console.log(`a missing plugin stops trestle serve (exit ${code}): ${said[0]}`);
  } finally {
    killGroup(missing.child.pid);
  }
}
