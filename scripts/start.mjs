#!/usr/bin/env node
// The README's main-job command. Builds the workspace, then starts the router with its built-in capability
// services on the embedded store. Until the server package lands, it runs the smallest end-to-end demo:
// a tool call through the in-memory transport.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";

const root = join(import.meta.dirname, "..");
const build = spawnSync(join(root, "node_modules", ".bin", "turbo"), ["run", "build"], {
  cwd: root,
  stdio: "inherit",
});
if (build.status !== 0) process.exit(build.status ?? 1);

const cli = join(root, "packages", "server", "dist", "cli.js");
if (existsSync(cli)) {
  const child = spawnSync(process.execPath, [cli, "serve", "--builtins", ...process.argv.slice(2)], {
    stdio: "inherit",
  });
  process.exit(child.status ?? 1);
}

const { create } = await import("@bufbuild/protobuf");
const { ToolInvokeRequestSchema } = await import(join(root, "packages/proto/dist/index.js"));
const core = await import(join(root, "packages/core/dist/index.js"));
const network = core.createInMemoryNetwork();
const served = network.serve({ toolInvoker: (req) => ({ content: [`hello, ${req.arguments.name}`] }) });
const transport = core.createInMemoryTransport({ network });
const reply = await transport.invokeTool(
  create(ToolInvokeRequestSchema, { uri: "demo://hello", arguments: { name: "Trestle" } }),
  served.target,
);
console.log(reply.content[0]);
