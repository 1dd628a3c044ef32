// pack-check's proof of `trestle new transport` (called from scripts/pack-check.mjs once @trestle/server is installed
// globally): the installed CLI writes a transport package into a fresh directory outside the workspace; npm installs
// it (@trestle/* from the loopback registry, so @trestle/core and its transport kit come from the packed tarball,
// the rest from npm); its tests run the kit (`describeTransportContract` from @trestle/core/testing, with vitest as
// the package's own dependency and core's peer) and check the plugin module's shape; then it type-checks and builds,
// its built main entry is imported to check the contract the router will check, and `npm pack --dry-run` shows what
// `npm publish` would send.
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

/** The protocol the check scaffolds: the package is `trestle-transport-demo`. */
const PROTOCOL = "demo";

/**
 * Runs the check. `tools` are pack-check's own helpers: `run(command, args, { cwd, timeoutMs, env })` resolving with
 * the output, `npm(args, registry, cwd, timeoutMs)` with the scope's registry set, and `fail(message)` returning
 * the error to throw.
 */
export async function checkScaffold({ trestle, scratch, registry, serverVersion, tools }) {
  const { run, npm, fail } = tools;
  const cwd = join(scratch, "scaffold");
  mkdirSync(cwd);
  // No TRESTLE_* setting from this shell reaches the CLI.
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("TRESTLE_")));
  console.log((await run(trestle, ["new", "transport", PROTOCOL], { cwd, env })).trimEnd());
  const dir = join(cwd, `trestle-transport-${PROTOCOL}`);
  if (!existsSync(join(dir, "package.json"))) throw fail(`trestle new transport wrote no package in ${dir}`);

  const refused = await run(trestle, ["new", "transport", PROTOCOL], { cwd, env }).then(
    () => undefined,
    (error) => error.message,
  );
  if (!refused?.includes("exists and is not empty"))
    throw fail(`trestle new transport did not refuse a non-empty directory: ${refused ?? "it exited 0"}`);

  const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  if (manifest.peerDependencies?.["@trestle/core"] !== `^${serverVersion}`)
    throw fail(`the new package's @trestle/core peer range is not ^${serverVersion}`);

  await npm(["install"], registry, dir);
  const core = JSON.parse(
    readFileSync(join(dir, "node_modules", "@trestle", "core", "package.json"), "utf8"),
  );
  if (core.version !== serverVersion)
    throw fail(`npm installed @trestle/core ${core.version}, not the packed ${serverVersion}`);

  // Plain text, to read the verbose reporter's lines: the kit's suite must have run, not only the plugin test.
  const testEnv = { ...process.env, NO_COLOR: "1" };
  delete testEnv.FORCE_COLOR;
  const tested = await run("npm", ["test", "--", "--reporter=verbose"], {
    cwd: dir,
    env: testEnv,
    timeoutMs: 300_000,
  }).catch((error) => {
    throw fail(`the new transport package's tests fail against the packed @trestle/core\n${error.message}`);
  });
  const summary = /Tests\s+(\d+) passed/.exec(tested);
  if (!summary || !/transport contract: demo transport/.test(tested))
    throw fail(`npm test ran no transport kit:\n${tested.slice(-2000)}`);
  console.log(`npm test: the transport kit and the plugin test pass (${summary[1]} tests)`);

  await run("npm", ["run", "typecheck"], { cwd: dir });
  await run("npm", ["run", "build"], { cwd: dir });
  const entry = join(dir, "dist", "index.js");
  const plugin = await import(pathToFileURL(entry).href);
  if (
    typeof plugin.default !== "function" ||
    plugin.contractVersion !== 1 ||
    typeof plugin.optionsSchema?.["~standard"]?.validate !== "function"
  )
    throw fail(`${entry} does not export the plugin contract (default, contractVersion 1, optionsSchema)`);
  console.log("npm run typecheck and build: dist/index.js exports default, contractVersion 1, optionsSchema");

  // Ready to publish: what `npm publish` would send holds the build and the README, and no tests.
  // The build is done: no prepack, so that the output is npm's JSON alone.
  const listing = await run("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: dir });
  const [packed] = JSON.parse(listing.slice(listing.indexOf("[")));
  const paths = new Set(packed.files.map((f) => f.path));
  const missing = ["dist/index.js", "dist/index.d.ts", "README.md", "package.json"].filter(
    (p) => !paths.has(p),
  );
  const tests = [...paths].filter((p) => p.startsWith("test/") || p.endsWith(".test.ts"));
  if (missing.length > 0 || tests.length > 0)
    throw fail(
      `npm pack of the new package: missing ${missing.join(", ") || "nothing"}, tests ${tests.join(", ") || "none"}`,
    );
  console.log(`npm pack --dry-run: ${packed.name}@${packed.version}, ${paths.size} files, no tests`);
}
