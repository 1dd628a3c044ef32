#!/usr/bin/env node
// The README's main-job command: builds the workspace (turbo, cached), then starts the router with its built-in
// capability services (HTTP tools, files under the current directory, code execution) on the embedded store in
// .trestle/data. Extra arguments go to `trestle serve` (e.g. `pnpm start --port 9090`).
import { spawn, spawnSync } from "node:child_process";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { ensureBubblewrap } from "./bubblewrap.mjs";

const root = join(import.meta.dirname, "..");
// Said before the build, which takes about a minute the first time (cached after): a silent minute looks hung.
// turbo prints a line per package as it builds it (hash-only), and a build error in full.
console.error("trestle: building the workspace (about a minute the first time, seconds after) …");
const buildStarted = Date.now();
const build = spawnSync(
  join(root, "node_modules", ".bin", "turbo"),
  ["run", "build", "--output-logs=hash-only"],
  {
    cwd: root,
    stdio: "inherit",
  },
);
if (build.status !== 0) process.exit(build.status ?? 1);
console.error(`trestle: built in ${Math.round((Date.now() - buildStarted) / 1000)} s; starting the router …`);

ensureBubblewrap(
  "the built-in code execution engine will not start",
  "start again. The other built-in services start as usual",
);

// The router's launch settings (a smaller young generation, the embedded store's WebAssembly on the baseline
// compiler, fixed glibc malloc thresholds): they take effect only when given to node and its C library before the
// router runs (packages/server/src/launch.ts says why, measured). The flags go on node's command line (NODE_OPTIONS
// refuses one of them), so the built-ins do not inherit them. The malloc values set in this shell win, and a
// NODE_OPTIONS of its own applies too.
const { ROUTER_MALLOC_ENV, ROUTER_NODE_FLAGS } = await import(
  pathToFileURL(join(root, "packages", "server", "dist", "launch.js")).href
);

const cli = join(root, "packages", "server", "dist", "cli.js");
// Loopback unless the arguments say otherwise: an explicit --host goes after this one and wins, and without
// tokens the router refuses any other address unless --insecure-open is given too.
const child = spawn(
  process.execPath,
  [...ROUTER_NODE_FLAGS, cli, "serve", "--builtins", "--host", "127.0.0.1", ...process.argv.slice(2)],
  {
    stdio: "inherit",
    // The router is the user's own program started in this shell's place, so it reads its settings (TRESTLE_*,
    // secrets' files, proxies) from this environment. The programs it starts in turn (built-ins, forwards, code
    // runs) get only the variables each needs, never these.
    env: { ...ROUTER_MALLOC_ENV, ...process.env },
  },
);
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 0 : 1)));
