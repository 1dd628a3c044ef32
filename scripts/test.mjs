#!/usr/bin/env node
// Runs every package's tests through turbo, then (in CI, or with TRESTLE_TEST_NODE24=1) the packages' unit suites
// again on Node 24, then sums the per-package vitest JSON reports of both runs into the plain closing line
// `N passed, N failed` that CI reads. Exits non-zero when any test failed or a package's run did.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { delimiter, dirname, join } from "node:path";
import { ensureNode24, NODE24_VERSION, node24Unsupported } from "./node-binary.mjs";

const root = join(import.meta.dirname, "..");
// Every workspace package: the packages and the examples (the guide's transport runs the test kit too).
const packageDirs = ["packages", "examples"]
  .map((folder) => join(root, folder))
  .filter((folder) => existsSync(folder))
  .flatMap((folder) => readdirSync(folder).map((name) => join(folder, name)))
  .filter((dir) => existsSync(join(dir, "package.json")));
for (const dir of packageDirs) rmSync(join(dir, "test-results"), { recursive: true, force: true });

const turbo = join(root, "node_modules", ".bin", "turbo");
const extra = process.argv.slice(2);
const run = spawnSync(turbo, ["run", "test", "--continue", "--concurrency=2", ...extra], {
  cwd: root,
  stdio: "inherit",
});

/** The unit suites of the packages run again on Node 24: every package's tests but e2e's (real routers, slow). */
const NODE24_REPORT = join("test-results", "vitest-node24.json");

/** Whether to run the second pass: in CI, or when asked; never on a filtered run unless asked. */
function wantNode24() {
  const setting = process.env.TRESTLE_TEST_NODE24;
  if (setting === "0") return false;
  if (setting === "1") return true;
  return Boolean(process.env.CI) && extra.length === 0;
}

/** Runs one package's vitest on `node`, writing its JSON report to NODE24_REPORT; resolves with its output. */
function vitestOn(node, dir) {
  const local = join(dir, "node_modules", "vitest", "vitest.mjs");
  const vitest = existsSync(local) ? local : join(root, "node_modules", "vitest", "vitest.mjs");
  return new Promise((resolve) => {
    const child = spawn(node, [vitest, "run", `--outputFile.json=${NODE24_REPORT}`], {
      cwd: dir,
      // Tests that start processes with process.execPath, or `node` from PATH, get Node 24 as well.
      env: { ...process.env, PATH: `${dirname(node)}${delimiter}${process.env.PATH ?? ""}` },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk) => {
      output += chunk;
    });
    child.stderr.on("data", (chunk) => {
      output += chunk;
    });
    child.on("close", (status) => resolve({ status, output }));
  });
}

/** The unit suites on Node 24, two packages at a time (as turbo runs the first pass); true when every run exited 0. */
async function runOnNode24(dirs) {
  const unsupported = node24Unsupported();
  if (unsupported) {
    console.log(`\nThe unit suites do not run on Node 24 here: ${unsupported}`);
    return { dirs: [], ok: true };
  }
  let node;
  try {
    node = ensureNode24();
  } catch (error) {
    missing.push(`the Node ${NODE24_VERSION} run (${error.message})`);
    return { dirs: [], ok: false };
  }
  const started = Date.now();
  console.log(`\n=== unit suites on Node ${NODE24_VERSION} (${node})`);
  const queue = [...dirs];
  let ok = true;
  const worker = async () => {
    for (let dir = queue.shift(); dir !== undefined; dir = queue.shift()) {
      const { status, output } = await vitestOn(node, dir);
      console.log(`\n--- Node ${NODE24_VERSION}: ${dir.slice(root.length + 1)} (exit ${status})\n${output}`);
      if (status !== 0) ok = false;
    }
  };
  await Promise.all([worker(), worker()]);
  console.log(`=== unit suites on Node ${NODE24_VERSION}: ${Math.round((Date.now() - started) / 1000)} s`);
  return { dirs, ok };
}

let passed = 0;
let failed = 0;
let skipped = 0;
const missing = [];
/** Every failing test as "package: file › test", printed just above the closing line where a log's tail shows it. */
const failures = [];
/** Adds one vitest JSON report's counts; a package whose report is missing counts as a failure. */
function count(dir, reportName, label) {
  const report = join(dir, reportName);
  if (!existsSync(report)) {
    missing.push(label);
    return;
  }
  const json = JSON.parse(readFileSync(report, "utf8"));
  passed += json.numPassedTests;
  failed += json.numFailedTests;
  skipped += json.numPendingTests + json.numTodoTests;
  // A file that failed to load has no tests to count; count it as a failure.
  for (const file of json.testResults) {
    const where = `${label}: ${file.name.slice(dir.length + 1)}`;
    if (file.status === "failed" && file.assertionResults.length === 0) {
      failed += 1;
      failures.push(`${where} (did not load: ${firstLine(file.message)})`);
    }
    for (const test of file.assertionResults)
      if (test.status === "failed")
        failures.push(`${where} › ${test.fullName}: ${firstLine(test.failureMessages?.[0])}`);
  }
}

/** The first line of a failure message, shortened: enough to tell one failure from another in a log's tail. */
function firstLine(message) {
  const line = String(message ?? "").split("\n", 1)[0];
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}

const tested = packageDirs.filter(
  (dir) => JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).scripts?.test !== undefined,
);
const packageName = (dir) => JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).name;
for (const dir of tested) count(dir, join("test-results", "vitest.json"), packageName(dir));
const node24 = wantNode24()
  ? await runOnNode24(
      tested.filter((dir) => dirname(dir) === join(root, "packages") && packageName(dir) !== "@trestle/e2e"),
    )
  : { dirs: [], ok: true };
for (const dir of node24.dirs) count(dir, NODE24_REPORT, `${packageName(dir)} (Node ${NODE24_VERSION})`);
if (missing.length > 0) {
  console.log(`No test report from: ${missing.join(", ")} (their test run did not finish)`);
  failed += missing.length;
}
if (failed === 0 && (run.status !== 0 || !node24.ok)) {
  // Every test passed, yet a run failed: vitest exits 1 on an unhandled error (a promise rejected after its test),
  // which its JSON report does not count. The closing line must not say "0 failed" then.
  console.log(
    "A test run exited non-zero with every test passing: an unhandled error (see its output above)",
  );
  failed += 1;
}
if (failures.length > 0) console.log(`\nFailed:\n${failures.map((failure) => `  ${failure}`).join("\n")}`);
console.log(`\n${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ""}`);
process.exit(failed > 0 || run.status !== 0 || !node24.ok ? 1 : 0);
