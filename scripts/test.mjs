#!/usr/bin/env node
// Runs every package's tests through turbo, then sums the per-package vitest JSON reports into the plain
// closing line `N passed, N failed` that CI reads. Exits non-zero when any test failed or a package's run did.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";

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

let passed = 0;
let failed = 0;
let skipped = 0;
const missing = [];
for (const dir of packageDirs) {
  const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  if (!pkg.scripts?.test) continue;
  const report = join(dir, "test-results", "vitest.json");
  if (!existsSync(report)) {
    missing.push(pkg.name);
    continue;
  }
  const json = JSON.parse(readFileSync(report, "utf8"));
  passed += json.numPassedTests;
  failed += json.numFailedTests;
  skipped += json.numPendingTests + json.numTodoTests;
  // A file that failed to load has no tests to count; count it as a failure.
  for (const file of json.testResults)
    if (file.status === "failed" && file.assertionResults.length === 0) failed += 1;
}
if (missing.length > 0) {
  console.log(`No test report from: ${missing.join(", ")} (their test run did not finish)`);
  failed += missing.length;
}
console.log(`\n${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ""}`);
process.exit(failed > 0 || run.status !== 0 ? 1 : 0);
