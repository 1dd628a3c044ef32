#!/usr/bin/env node
// Proves that the published packages work outside this monorepo, the way a user takes them. Run `pnpm build` first.
//
//  1. docs/deploy.md's configuration reference matches the config schema (scripts/update-deploy-docs.mjs --check).
//  2. `pnpm pack` of every publishable package, then each tarball is inspected: no workspace protocol left in its
//     manifest, no `@trestle/source` export condition, every exported file present, no test or config files, no
//     build output without its source, and every import in it satisfied by the package's own dependencies — an
//     import that only resolves inside the workspace (a devDependency, a sibling it does not declare, a path into
//     another package) fails here. A self-check first proves that the inspection catches each of these.
//  3. A throwaway npm registry on loopback serves the tarballs for the @trestle scope, so that nothing named
//     @trestle/* can come from anywhere else; third-party dependencies come from npm as usual.
//  4. A scratch project in the OS temp directory installs @trestle/proto, core, transport-grpc and capability
//     with npm, type-checks examples/standalone-consumer/main.ts and the checked README examples with tsc 5.9.3,
//     and runs them with node: a capability server made with the SDK, called through the gRPC transport.
//  5. `npm i -g` of the @trestle/server tarball into a temporary prefix; `<prefix>/bin/trestle serve
//     --memory-store --port 0 --builtins` runs from an empty directory: /healthz, /readyz, MCP initialize,
//     tools/list until the built-in code execution engine is listed, one execute_code call, the built-ins started
//     from their bundles (dist/bundle), the admin UI's page and script at /ui, then SIGTERM and a clean exit with
//     the built-in services gone.
//  6. The installed `trestle new transport demo` writes a transport package in an empty directory; npm installs it
//     (@trestle/* from the registry above), its tests run the transport kit from the packed @trestle/core/testing,
//     and it type-checks and builds (scripts/pack-check/scaffold.mjs).
//  7. The transport plugin (scripts/pack-check/transport-plugin.mjs): examples/transport-http-json is packed with
//     the others, installed globally beside the server, named under `transports` in a config file, and an MCP
//     tools/call goes through the installed router and the plugin to the example's capability server; a plugin
//     that is not installed stops `trestle serve` with one sentence.
//
// Options: --global-prefix DIR  installs the server into DIR and keeps it (the container recipe uses this);
//          --keep               keeps the temporary directory and prints where it is.
// Prints `pack-check: ok` and exits 0, or lists every problem and exits 1.
import { spawn } from "node:child_process";
import { createHash, randomUUID } from "node:crypto";
import {
  cpSync,
  createReadStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:http";
import { builtinModules } from "node:module";
import { tmpdir } from "node:os";
import { basename, join, posix, relative, resolve } from "node:path";
import { parseArgs } from "node:util";
import { createParser } from "eventsource-parser";
import ts from "typescript";
import { checkScaffold } from "./pack-check/scaffold.mjs";
import { checkTransportPlugin, packTransportPlugin } from "./pack-check/transport-plugin.mjs";

const root = resolve(import.meta.dirname, "..");
const { values: options } = parseArgs({
  options: { "global-prefix": { type: "string" }, keep: { type: "boolean" } },
});
const started = Date.now();
const TYPESCRIPT_VERSION = "5.9.3";
/** What the consumer program prints when the call went through. */
const EXPECTED_REPLY = "reply: Hello, packed world!";

class CheckFailure extends Error {}

function step(title) {
  console.log(`\n=== pack-check: ${title} (${Math.round((Date.now() - started) / 1000)} s)`);
}

/**
 * Runs a command in its own process group, collecting its output; rejects with the output's tail when it fails
 * or outlives `timeoutMs` (the whole group is killed then).
 */
function run(command, args, { cwd = root, timeoutMs = 120_000, env = process.env } = {}) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, { cwd, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (d) => {
      output += d;
    });
    child.stderr.on("data", (d) => {
      output += d;
    });
    const timer = setTimeout(() => {
      killGroup(child.pid);
      reject(
        new CheckFailure(
          `${command} ${args.join(" ")} did not finish in ${timeoutMs / 1000} s\n${tail(output)}`,
        ),
      );
    }, timeoutMs);
    child.on("error", (error) => {
      clearTimeout(timer);
      reject(new CheckFailure(`${command}: ${error.message}`));
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      if (code === 0) resolvePromise(output);
      else reject(new CheckFailure(`${command} ${args.join(" ")} exited with ${code}\n${tail(output)}`));
    });
  });
}

function tail(text, lines = 40) {
  return text.trimEnd().split("\n").slice(-lines).join("\n");
}

function killGroup(pid) {
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // The group is already gone.
  }
}

function groupAlive(pid) {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** `promise`, or a `CheckFailure` saying `message()` after `ms`; the timer never outlives the race. */
async function within(promise, ms, message) {
  let timer;
  try {
    return await Promise.race([
      promise,
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new CheckFailure(message())), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

async function until(check, timeoutMs, what) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > end) throw new CheckFailure(`${what}: not within ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Tarball inspection

/** Every file under `dir`, as posix paths relative to it. */
function listFiles(dir, prefix = "") {
  return readdirSync(join(dir, prefix), { withFileTypes: true }).flatMap((entry) => {
    const path = prefix ? `${prefix}/${entry.name}` : entry.name;
    return entry.isDirectory() ? listFiles(dir, path) : [path];
  });
}

/** Calls `visit(conditions, target)` for every file an `exports` map points to. */
function walkExports(value, visit, conditions = []) {
  if (typeof value === "string") visit(conditions, value);
  else if (Array.isArray(value)) for (const v of value) walkExports(v, visit, conditions);
  else if (value && typeof value === "object")
    for (const [key, v] of Object.entries(value)) walkExports(v, visit, [...conditions, key]);
}

/** The subpaths an `exports` map offers (".", "./testing", …). */
function exportedSubpaths(exportsField) {
  if (typeof exportsField === "string" || Array.isArray(exportsField)) return ["."];
  const keys = Object.keys(exportsField ?? {});
  return keys.length > 0 && keys.every((k) => k.startsWith(".")) ? keys : ["."];
}

/** Module specifiers a JavaScript or declaration file imports, requires or resolves. */
function importsOf(text) {
  const info = ts.preProcessFile(text, true, true);
  const specs = info.importedFiles.map((f) => f.fileName);
  for (const match of text.matchAll(/\brequire\.resolve\(\s*["']([^"']+)["']/g)) specs.push(match[1]);
  return specs;
}

/** The admin UI's browser bundle inside the server package: self-contained, imports nothing from npm. */
const isBundledUi = (file) => file.startsWith("dist/ui/");

const DEV_ONLY_FILE =
  /(^|\/)(test|tests|__tests__|fixtures|test-results|coverage|\.turbo)\/|\.(test|spec)\.[cm]?[jt]sx?$|(^|\/)(tsconfig[^/]*\.json|vitest\.config\.[cm]?[jt]s|[^/]*\.tsbuildinfo)$/;
const WORKSPACE_RANGE = /^(workspace|link|file|catalog|portal):/;
const DEPENDENCY_FIELDS = ["dependencies", "peerDependencies", "optionalDependencies", "devDependencies"];

/**
 * What is wrong with an unpacked package (`dir` holds its package.json), as one sentence per problem.
 * `siblings` maps the other packed packages' names to their manifests, to check imported subpaths.
 */
function inspectPackage(dir, siblings) {
  const problems = [];
  const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  const name = manifest.name;
  const files = listFiles(dir);
  const has = new Set(files);
  const problem = (text) => problems.push(`${name}: ${text}`);

  for (const field of ["license", "repository", "engines", "exports", "files"])
    if (!manifest[field]) problem(`package.json has no "${field}"`);
  if (!has.has("README.md")) problem("the tarball has no README.md");
  for (const field of DEPENDENCY_FIELDS)
    for (const [dep, range] of Object.entries(manifest[field] ?? {}))
      if (WORKSPACE_RANGE.test(range))
        problem(`${field}.${dep} is "${range}", a range only the workspace resolves`);

  const checkTarget = (what, target) => {
    if (!has.has(posix.normalize(target)))
      problem(`${what} points to ${target}, which is not in the tarball`);
  };
  walkExports(manifest.exports, (conditions, target) => {
    const leaked = conditions.find((c) => c.startsWith("@trestle/"));
    if (leaked) problem(`exports keep the workspace condition "${leaked}" (→ ${target})`);
    else checkTarget(`exports[${conditions.map((c) => JSON.stringify(c)).join("][")}]`, target);
  });
  const bins = typeof manifest.bin === "string" ? { [name]: manifest.bin } : (manifest.bin ?? {});
  for (const [bin, target] of Object.entries(bins)) checkTarget(`bin ${bin}`, target);
  for (const field of ["main", "types", "typings", "module"])
    if (manifest[field]) checkTarget(field, manifest[field]);

  for (const file of files) {
    if (DEV_ONLY_FILE.test(file)) problem(`${file} is a test or build configuration file`);
    // The server's dist/ui is the admin UI's build (packages/ui), copied in whole: no source of its own here.
    if (isBundledUi(file)) continue;
    if (file.startsWith("dist/") && file.endsWith(".js") && !has.has(`src/${file.slice(5, -3)}.ts`))
      problem(`${file} has no source in src/ (stale build output: rebuild from a clean dist/)`);
  }

  const declared = new Set(
    ["dependencies", "peerDependencies", "optionalDependencies"].flatMap((f) =>
      Object.keys(manifest[f] ?? {}),
    ),
  );
  const devOnly = new Set(Object.keys(manifest.devDependencies ?? {}));
  for (const file of files) {
    if (!/\.(m?js|cjs|d\.ts)$/.test(file) || isBundledUi(file)) continue;
    for (const spec of importsOf(readFileSync(join(dir, file), "utf8"))) {
      if (spec.startsWith("node:") || builtinModules.includes(spec)) continue;
      if (spec.startsWith(".") || spec.startsWith("/")) {
        const target = posix.normalize(posix.join(posix.dirname(file), spec));
        if (spec.startsWith("/") || target.startsWith("../")) {
          problem(`${file} imports ${spec}, outside the package`);
        } else if (
          !has.has(target) &&
          !(
            file.endsWith(".d.ts") &&
            [target.replace(/\.js$/, ".d.ts"), `${target}.d.ts`].some((t) => has.has(t))
          )
        ) {
          problem(`${file} imports ${spec}, which is not in the tarball`);
        }
        continue;
      }
      const pkg = spec
        .split("/")
        .slice(0, spec.startsWith("@") ? 2 : 1)
        .join("/");
      if (pkg === name) continue;
      if (!declared.has(pkg)) {
        problem(
          `${file} imports ${spec}, but ${pkg} is not among its dependencies${devOnly.has(pkg) ? " (only a devDependency: it resolves in the workspace, not for users)" : ""}`,
        );
        continue;
      }
      const sibling = siblings.get(pkg);
      const subpath = `.${spec.slice(pkg.length)}`;
      if (sibling && !exportedSubpaths(sibling.exports).includes(subpath))
        problem(`${file} imports ${spec}, but ${pkg} exports no "${subpath}"`);
    }
  }
  return problems;
}

/**
 * Proves that {@link inspectPackage} catches each kind of leak, by planting one at a time in a copy of a real
 * unpacked package and expecting the matching problem.
 */
function selfCheck(unpackedDir, siblings, scratch) {
  const original = JSON.parse(readFileSync(join(unpackedDir, "package.json"), "utf8"));
  const devDependency = Object.keys(original.devDependencies ?? {}).find(
    (d) => !original.dependencies?.[d] && !original.peerDependencies?.[d],
  );
  const plants = [
    {
      leak: `an import of the devDependency ${devDependency}`,
      expect: "only a devDependency",
      plant: (dir) => appendTo(join(dir, "dist", "index.js"), `\nimport "${devDependency}";\n`),
    },
    {
      leak: "an import of an undeclared package",
      expect: "is not among its dependencies",
      plant: (dir) => appendTo(join(dir, "dist", "index.js"), `\nexport * from "@trestle/server";\n`),
    },
    {
      leak: "a relative import into another package's sources",
      expect: "outside the package",
      plant: (dir) => appendTo(join(dir, "dist", "index.js"), `\nexport * from "../../core/src/index.js";\n`),
    },
    {
      leak: "the @trestle/source export condition",
      expect: 'workspace condition "@trestle/source"',
      plant: (dir) =>
        editManifest(dir, (m) => {
          m.exports["."] = { "@trestle/source": "./src/index.ts", ...m.exports["."] };
        }),
    },
    {
      leak: "a workspace: dependency range",
      expect: "a range only the workspace resolves",
      plant: (dir) =>
        editManifest(dir, (m) => {
          const dep = Object.keys(m.dependencies).find((d) => d.startsWith("@trestle/"));
          m.dependencies[dep] = "workspace:^";
        }),
    },
    {
      leak: "a test file",
      expect: "is a test or build configuration file",
      plant: (dir) => writeFileSync(join(dir, "src", "leak.test.ts"), "export {};\n"),
    },
    {
      leak: "build output without a source",
      expect: "has no source in src/",
      plant: (dir) => writeFileSync(join(dir, "dist", "removed-long-ago.js"), "export {};\n"),
    },
  ];
  if (!devDependency) throw new CheckFailure(`self-check: ${original.name} has no devDependency to plant`);
  const missed = [];
  for (const [i, { leak, expect, plant }] of plants.entries()) {
    const copy = join(scratch, `self-check-${i}`);
    cpSync(unpackedDir, copy, { recursive: true });
    plant(copy);
    const found = inspectPackage(copy, siblings);
    if (!found.some((p) => p.includes(expect)))
      missed.push(`${leak} (found: ${found.join("; ") || "nothing"})`);
    rmSync(copy, { recursive: true, force: true });
  }
  if (missed.length > 0) throw new CheckFailure(`the tarball inspection misses:\n  ${missed.join("\n  ")}`);
  console.log(`the inspection catches all ${plants.length} planted leaks in a copy of ${original.name}`);
}

function appendTo(path, text) {
  writeFileSync(path, readFileSync(path, "utf8") + text);
}

function editManifest(dir, edit) {
  const path = join(dir, "package.json");
  const manifest = JSON.parse(readFileSync(path, "utf8"));
  edit(manifest);
  writeFileSync(path, JSON.stringify(manifest, null, 2));
}

// ---------------------------------------------------------------------------------------------------------------
// The @trestle scope's throwaway registry

/**
 * Serves packuments and tarballs for the packed packages. Its URL carries a random path segment, so that npm's
 * cache never answers for it from an earlier run.
 */
async function startScopeRegistry(packed) {
  const nonce = randomUUID();
  const byName = new Map(packed.map((p) => [p.manifest.name, p]));
  let base = "";
  const server = createServer((req, res) => {
    const path = decodeURIComponent((req.url ?? "").split("?")[0]);
    const prefix = `/${nonce}/`;
    if (!path.startsWith(prefix)) return void res.writeHead(404).end();
    const rest = path.slice(prefix.length);
    if (rest.startsWith("-/tarballs/")) {
      const entry = packed.find((p) => basename(p.tarball) === rest.slice("-/tarballs/".length));
      if (!entry) return void res.writeHead(404).end();
      res.writeHead(200, { "content-type": "application/octet-stream" });
      return void createReadStream(entry.tarball).pipe(res);
    }
    const entry = byName.get(rest);
    if (!entry) {
      res.writeHead(404, { "content-type": "application/json" });
      return void res.end(JSON.stringify({ error: `${rest} was not packed` }));
    }
    const { manifest, tarball } = entry;
    const bytes = readFileSync(tarball);
    const now = new Date().toISOString();
    res.writeHead(200, { "content-type": "application/json" });
    res.end(
      JSON.stringify({
        _id: manifest.name,
        name: manifest.name,
        "dist-tags": { latest: manifest.version },
        time: { created: now, modified: now, [manifest.version]: now },
        versions: {
          [manifest.version]: {
            ...manifest,
            _id: `${manifest.name}@${manifest.version}`,
            dist: {
              tarball: `${base}-/tarballs/${basename(tarball)}`,
              integrity: `sha512-${createHash("sha512").update(bytes).digest("base64")}`,
              shasum: createHash("sha1").update(bytes).digest("hex"),
            },
          },
        },
      }),
    );
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${server.address().port}/${nonce}/`;
  return {
    url: base,
    close: () =>
      new Promise((r) => {
        server.close(r);
        server.closeAllConnections(); // npm keeps its connections alive
      }),
  };
}

function npm(args, registry, cwd, timeoutMs = 240_000) {
  return run(
    "npm",
    [
      ...args,
      "--no-audit",
      "--no-fund",
      "--loglevel=error",
      "--prefer-offline",
      `--@trestle:registry=${registry.url}`,
    ],
    { cwd, timeoutMs },
  );
}

// ---------------------------------------------------------------------------------------------------------------
// The consumer project

/** The README examples marked as checked, as `[fileName, code]`. */
function checkedReadmeExamples() {
  const examples = [];
  for (const pkg of ["core", "proto"]) {
    const readme = readFileSync(join(root, "packages", pkg, "README.md"), "utf8");
    const blocks = [
      ...readme.matchAll(/<!-- checked by scripts\/pack-check\.mjs -->\s*\n```ts\n([\s\S]*?)\n```/g),
    ];
    if (blocks.length === 0) throw new CheckFailure(`packages/${pkg}/README.md has no checked example`);
    for (const [i, m] of blocks.entries()) examples.push([`readme-${pkg}-${i + 1}.ts`, m[1]]);
  }
  return examples;
}

async function checkConsumer(scratch, registry, protobufVersion) {
  const dir = join(scratch, "consumer");
  mkdirSync(dir);
  writeFileSync(
    join(dir, "package.json"),
    `${JSON.stringify({ name: "trestle-pack-check-consumer", private: true, type: "module" }, null, 2)}\n`,
  );
  await npm(
    [
      "install",
      "@trestle/proto",
      "@trestle/core",
      "@trestle/transport-grpc",
      "@trestle/capability",
      `@bufbuild/protobuf@${protobufVersion}`,
      `typescript@${TYPESCRIPT_VERSION}`,
      "@types/node@20",
    ],
    registry,
    dir,
  );
  for (const file of ["main.ts", "tsconfig.json"])
    cpSync(join(root, "examples", "standalone-consumer", file), join(dir, file));
  const readmeExamples = checkedReadmeExamples();
  for (const [file, code] of readmeExamples) writeFileSync(join(dir, file), code);

  const tsc = join(dir, "node_modules", "typescript", "bin", "tsc");
  await run(process.execPath, [tsc, "-p", "tsconfig.json"], { cwd: dir }).catch((error) => {
    throw new CheckFailure(
      `the consumer program does not type-check against the packed packages\n${error.message}`,
    );
  });
  console.log(`tsc ${TYPESCRIPT_VERSION}: main.ts and ${readmeExamples.length} README examples type-check`);

  const output = await run(process.execPath, [join("dist", "main.js")], { cwd: dir, timeoutMs: 30_000 });
  if (!output.includes(EXPECTED_REPLY))
    throw new CheckFailure(`the consumer program printed no "${EXPECTED_REPLY}":\n${tail(output)}`);
  console.log(output.trimEnd());
  for (const [file] of readmeExamples)
    await run(process.execPath, [join("dist", file.replace(/\.ts$/, ".js"))], {
      cwd: dir,
      timeoutMs: 30_000,
    });
  console.log(`the README examples run: ${readmeExamples.map(([f]) => f).join(", ")}`);
}

// ---------------------------------------------------------------------------------------------------------------
// The server installed globally

/** The non-empty `data` of each event of a whole `text/event-stream` body. */
function sseData(text) {
  const data = [];
  const parser = createParser({ onEvent: (event) => event.data !== "" && data.push(event.data) });
  parser.feed(text);
  return data;
}

/** One MCP request over Streamable HTTP; the reply may come as JSON or as an SSE stream. */
async function mcp(url, body, session) {
  const response = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...(session ? { "mcp-session-id": session.id, "mcp-protocol-version": session.protocolVersion } : {}),
    },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await response.text();
  if (!response.ok) throw new CheckFailure(`MCP ${body.method}: HTTP ${response.status} ${text}`);
  if (body.id === undefined) return { sessionId: response.headers.get("mcp-session-id") };
  const messages = (response.headers.get("content-type") ?? "").includes("text/event-stream")
    ? sseData(text).map((data) => JSON.parse(data))
    : [JSON.parse(text)];
  const reply = messages.find((m) => m.id === body.id);
  if (!reply?.result) throw new CheckFailure(`MCP ${body.method}: ${JSON.stringify(reply ?? messages)}`);
  return { result: reply.result, sessionId: response.headers.get("mcp-session-id") };
}

async function checkGlobalServer(scratch, registry, serverTarball, serverVersion) {
  const prefix = options["global-prefix"] ? resolve(options["global-prefix"]) : join(scratch, "global");
  mkdirSync(prefix, { recursive: true });
  await npm(["install", "--global", "--prefix", prefix, serverTarball], registry, scratch);
  const trestle = join(prefix, "bin", "trestle");
  if (!existsSync(trestle)) throw new CheckFailure(`npm i -g put no trestle command in ${prefix}/bin`);
  console.log(`installed: ${trestle}`);

  // An empty directory, far from any workspace; no TRESTLE_* setting leaks in from this shell.
  const cwd = join(scratch, "serve");
  mkdirSync(cwd);
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("TRESTLE_")));
  const child = spawn(
    trestle,
    ["serve", "--memory-store", "--port", "0", "--builtins", "--root", cwd, "--log-level", "warn"],
    { cwd, env, detached: true, stdio: ["ignore", "ignore", "pipe"] },
  );
  let stderr = "";
  const exited = new Promise((r) => child.on("exit", (code, signal) => r({ code, signal })));
  try {
    const listening = new Promise((r) =>
      child.stderr.on("data", (d) => {
        stderr += d;
        const match = /serving MCP at (http:\/\/\S+)\/mcp/.exec(stderr);
        if (match) r(match[1]);
      }),
    );
    const exitedEarly = exited.then(({ code }) => {
      throw new CheckFailure(`trestle serve exited with ${code} before listening\n${tail(stderr)}`);
    });
    const base = await within(
      Promise.race([listening, exitedEarly]),
      60_000,
      () => `trestle serve did not listen in 60 s\n${tail(stderr)}`,
    );
    console.log(`trestle serve listens at ${base}`);
    for (const path of ["/healthz", "/readyz"]) {
      const response = await fetch(`${base}${path}`, { signal: AbortSignal.timeout(10_000) });
      if (response.status !== 200) throw new CheckFailure(`GET ${path}: HTTP ${response.status}`);
    }

    const page = await fetch(`${base}/ui/`, { signal: AbortSignal.timeout(10_000) });
    const html = await page.text();
    const script = /<script type="module" crossorigin src="(\/ui\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    if (page.status !== 200 || !script)
      throw new CheckFailure(`GET /ui/: HTTP ${page.status}, no admin UI page:\n${html.slice(0, 300)}`);
    if (!(page.headers.get("content-security-policy") ?? "").includes("default-src 'self'"))
      throw new CheckFailure("GET /ui/: no Content-Security-Policy");
    const asset = await fetch(`${base}${script}`, { signal: AbortSignal.timeout(10_000) });
    if (asset.status !== 200 || !(asset.headers.get("content-type") ?? "").startsWith("text/javascript"))
      throw new CheckFailure(`GET ${script}: HTTP ${asset.status} ${asset.headers.get("content-type")}`);
    await asset.arrayBuffer();
    console.log(`the admin UI is installed: /ui/ and ${script}`);

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
    const info = init.result.serverInfo;
    if (info?.name !== "trestle" || info.version !== serverVersion)
      throw new CheckFailure(
        `initialize: serverInfo is ${JSON.stringify(info)}, not trestle ${serverVersion}`,
      );
    const session = { id: init.sessionId, protocolVersion: init.result.protocolVersion };
    await mcp(endpoint, { jsonrpc: "2.0", method: "notifications/initialized" }, session);
    console.log(`MCP initialize: ${info.name} ${info.version}, protocol ${init.result.protocolVersion}`);

    let id = 2;
    await until(
      async () => {
        const { result } = await mcp(endpoint, { jsonrpc: "2.0", id: id++, method: "tools/list" }, session);
        return result.tools.some((t) => t.name === "execute_code");
      },
      30_000,
      "the built-in code execution engine registering (tools/list with execute_code)",
    );
    const { result } = await mcp(
      endpoint,
      {
        jsonrpc: "2.0",
        id: id++,
        method: "tools/call",
        params: { name: "execute_code", arguments: { language: "javascript", code: "console.log(6 * 7)" } },
      },
      session,
    );
    if (result.isError || result.structuredContent?.stdout?.trim() !== "42")
      throw new CheckFailure(`execute_code through the installed router: ${JSON.stringify(result)}`);
    console.log("tools/list lists execute_code; execute_code ran javascript on the built-in engine: 42");
    // The installed built-ins start from their packages' bundles (the router warns when one is not current).
    if (/not from its bundle/.test(stderr))
      throw new CheckFailure(`a built-in did not start from its bundle\n${tail(stderr)}`);
    console.log("the built-in services started from their bundles");

    child.kill("SIGTERM");
    const { code, signal } = await within(
      exited,
      30_000,
      () => "trestle serve did not stop within 30 s of SIGTERM",
    );
    if (code !== 0)
      throw new CheckFailure(`trestle serve exited with ${code ?? signal} on SIGTERM\n${tail(stderr)}`);
    await until(() => !groupAlive(child.pid), 10_000, "the built-in services exiting with the router");
    console.log("SIGTERM: trestle serve drained and exited 0; its built-in services are gone");
  } finally {
    killGroup(child.pid);
  }
  return prefix;
}

// ---------------------------------------------------------------------------------------------------------------

async function main() {
  const scratch = mkdtempSync(join(tmpdir(), "trestle-pack-check-"));
  if (!relative(root, scratch).startsWith("..")) throw new CheckFailure(`${scratch} is inside the workspace`);
  let registry;
  try {
    step("configuration reference in docs/deploy.md");
    await run(process.execPath, [join(root, "scripts", "update-deploy-docs.mjs"), "--check"]).then((o) =>
      console.log(o.trimEnd()),
    );

    step("pnpm pack");
    const packagesDir = join(root, "packages");
    const publishable = readdirSync(packagesDir)
      .filter((d) => existsSync(join(packagesDir, d, "package.json")))
      .filter((d) => !JSON.parse(readFileSync(join(packagesDir, d, "package.json"), "utf8")).private)
      .sort();
    const tarballs = join(scratch, "tarballs");
    const packed = [];
    for (const dir of publishable) {
      const cwd = join(packagesDir, dir);
      if (!existsSync(join(cwd, "dist")))
        throw new CheckFailure(`packages/${dir} has no dist/: run 'pnpm build'`);
      const { filename } = JSON.parse(
        await run("pnpm", ["pack", "--pack-destination", tarballs, "--json"], { cwd }),
      );
      const unpacked = join(scratch, "unpacked", dir);
      mkdirSync(unpacked, { recursive: true });
      await run("tar", ["-xzf", filename, "-C", unpacked]);
      const packageDir = join(unpacked, "package");
      const manifest = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8"));
      packed.push({ dir, tarball: filename, packageDir, manifest });
      console.log(
        `${manifest.name}@${manifest.version}: ${basename(filename)} (${Math.round(statSync(filename).size / 1024)} KiB)`,
      );
    }

    packed.push(await packTransportPlugin({ root, scratch, tarballs, run, CheckFailure }));
    console.log(
      `${packed.at(-1).manifest.name}@${packed.at(-1).manifest.version} (the example transport plugin)`,
    );

    step("tarball inspection");
    const siblings = new Map(packed.map((p) => [p.manifest.name, p.manifest]));
    const grpc = packed.find((p) => p.manifest.name === "@trestle/transport-grpc");
    if (!grpc) throw new CheckFailure("@trestle/transport-grpc was not packed");
    selfCheck(grpc.packageDir, siblings, scratch);
    const problems = packed.flatMap((p) => inspectPackage(p.packageDir, siblings));
    if (problems.length > 0)
      throw new CheckFailure(`the packed packages are not usable alone:\n  ${problems.join("\n  ")}`);
    console.log(`${packed.length} tarballs: manifests, exports, files and imports are fit to publish`);

    step("registry for the @trestle scope");
    registry = await startScopeRegistry(packed);
    console.log(`serving ${packed.length} tarballs at ${registry.url}`);

    step("consumer project outside the workspace");
    const protobufVersion = siblings.get("@trestle/proto").dependencies["@bufbuild/protobuf"];
    await checkConsumer(scratch, registry, protobufVersion);

    step("npm i -g @trestle/server, then trestle serve");
    const server = packed.find((p) => p.manifest.name === "@trestle/server");
    const prefix = await checkGlobalServer(scratch, registry, server.tarball, server.manifest.version);

    step("a transport plugin installed beside the server, loaded by configuration");
    await checkTransportPlugin({
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
    });

    step("trestle new transport: the scaffold installs, passes the transport kit and builds");
    await checkScaffold({
      trestle: join(prefix, "bin", "trestle"),
      scratch,
      registry,
      serverVersion: server.manifest.version,
      tools: { run, npm, fail: (message) => new CheckFailure(message) },
    });

    console.log(
      `\npack-check: ok (${packed.length} packages, ${Math.round((Date.now() - started) / 1000)} s)`,
    );
  } finally {
    await registry?.close();
    if (options.keep) console.log(`kept ${scratch}`);
    else rmSync(scratch, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(`\npack-check: FAILED\n${error instanceof CheckFailure ? error.message : error.stack}`);
  process.exit(1);
});
