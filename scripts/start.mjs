#!/usr/bin/env node
// The README's main-job command: builds the workspace (turbo, cached), then starts the router with its built-in
// capability services (HTTP tools, files under the current directory, code execution) on the embedded store in
// .trestle/data. Extra arguments go to `trestle serve` (e.g. `pnpm start --port 9090`).
import { spawn, spawnSync } from "node:child_process";
import { join } from "node:path";

const root = join(import.meta.dirname, "..");
const build = spawnSync(
  join(root, "node_modules", ".bin", "turbo"),
  ["run", "build", "--output-logs=errors-only"],
  {
    cwd: root,
    stdio: "inherit",
  },
);
if (build.status !== 0) process.exit(build.status ?? 1);

const cli = join(root, "packages", "server", "dist", "cli.js");
// Loopback unless the arguments say otherwise: an explicit --host goes after this one and wins, and without
// tokens the router refuses any other address unless --insecure-open is given too.
const child = spawn(
  process.execPath,
  [cli, "serve", "--builtins", "--host", "127.0.0.1", ...process.argv.slice(2)],
  {
    stdio: "inherit",
  },
);
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 0 : 1)));
