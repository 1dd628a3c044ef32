import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const packageRoot = join(import.meta.dirname, "..");

interface JsonReport {
  testResults: { assertionResults: { fullName: string; status: string }[] }[];
}

/** Runs the kit against deliberately broken transports in a child vitest: the kit must be able to fail. */
describe("the transport test kit", () => {
  const scratch = mkdtempSync(join(tmpdir(), "trestle-kit-"));
  let results: { fullName: string; status: string }[] = [];

  beforeAll(async () => {
    const out = join(scratch, "report.json");
    await promisify(execFile)(
      join(packageRoot, "node_modules", ".bin", "vitest"),
      ["run", "--config", "test/fixtures/vitest.kit.config.ts", "--reporter=json", `--outputFile=${out}`],
      { cwd: packageRoot, env: { ...process.env, CI: "true" } },
    ).catch(() => undefined); // the child run fails by design; the report says how
    const report = JSON.parse(readFileSync(out, "utf8")) as JsonReport;
    results = report.testResults.flatMap((file) => file.assertionResults);
  }, 120_000);

  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  function outcome(suite: string, test: string): string | undefined {
    return results.find(
      (r) => r.fullName.includes(`transport contract: ${suite}`) && r.fullName.includes(test),
    )?.status;
  }

  it.each([
    ["buffers-streams", "delivers each stream output as it is produced"],
    ["loses-error-codes", "maps a service error NotFound to its code"],
    ["loses-error-codes", "maps a service error InvalidArgument to its code"],
    ["ignores-cancellation", "cancels a unary call when the signal aborts"],
    ["drops-metadata", "sends the request id and caller metadata as call metadata"],
    ["ignores-deadlines", "fails with DeadlineExceeded when the service outlives the deadline"],
    ["reports-no-leg", "reports the leg it speaks on each tool call and code execution"],
  ])("fails a transport that %s, at '%s'", (suite, test) => {
    expect(outcome(suite, test)).toBe("failed");
  });

  it("passes the parts of the contract a broken transport still honours", () => {
    expect(outcome("drops-metadata", "reads a resource")).toBe("passed");
    expect(outcome("buffers-streams", "calls a tool and carries every call field")).toBe("passed");
  });
});
