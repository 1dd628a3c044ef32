import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createExecService, findPython } from "../src/index.js";
import { ExecutionStatus, type ServedEngine, serveEngine } from "./engine-fixture.js";

let engine: ServedEngine;
let outsideDir: string;
let outsideFile: string;
const python = findPython();

beforeAll(async () => {
  // In the service's own environment: a run must not see it.
  process.env.TRESTLE_TEST_LEAK = "service-only";
  outsideDir = await mkdtemp(join(tmpdir(), "trestle-exec-outside-"));
  outsideFile = join(outsideDir, "private.txt");
  await writeFile(outsideFile, "not for programs");
  engine = await serveEngine({ memoryLimitMb: 64 });
});

afterAll(async () => {
  delete process.env.TRESTLE_TEST_LEAK;
  await engine?.close();
  if (outsideDir) await rm(outsideDir, { recursive: true, force: true });
});

describe("JavaScript under Node's permission model", () => {
  it("reads and writes its work directory but cannot read a file outside it", async () => {
    const code = `
      const fs = require("node:fs");
      fs.writeFileSync("own.txt", "mine");
      console.log("own:" + fs.readFileSync("own.txt", "utf8"));
      for (const path of [process.argv[2], "/etc/hostname"]) {
        try { fs.readFileSync(path, "utf8"); console.log("READ " + path); }
        catch (error) { console.log("denied " + error.code); }
      }`;
    const result = await engine.run("javascript", code, { arguments: { arg0: outsideFile } });
    expect(result.stdout).toBe("own:mine\ndenied ERR_ACCESS_DENIED\ndenied ERR_ACCESS_DENIED\n");
    expect(result.final.status).toBe(ExecutionStatus.COMPLETED);
  });

  it("cannot start other processes", async () => {
    const result = await engine.run("javascript", 'require("node:child_process").execSync("id")');
    expect(result.stderr).toContain("ERR_ACCESS_DENIED");
    expect(result.final.status).toBe(ExecutionStatus.FAILED);
  });

  it("sees only PATH, HOME (its work directory), TMPDIR, LANG and what the request sets", async () => {
    const code = `console.log(JSON.stringify({ keys: Object.keys(process.env).sort(), home: process.env.HOME === process.cwd() }))`;
    const result = await engine.run("javascript", code, { environment: { GREETING: "hi" } });
    const seen = JSON.parse(result.stdout) as { keys: string[]; home: boolean };
    expect(seen.keys.filter((key) => key !== "LANG")).toEqual(["GREETING", "HOME", "PATH", "TMPDIR"]);
    expect(seen.home).toBe(true);
  });

  it("is stopped by its memory cap", async () => {
    const code = "const hoard = []; for (;;) hoard.push(new Array(1e6).fill(Math.random()));";
    const result = await engine.run("javascript", code, { timeout: 20_000n });
    expect(result.final.status).toBe(ExecutionStatus.FAILED);
    expect(result.stderr).toMatch(/heap out of memory/i);
  });
});

describe("Python", () => {
  it(
    python
      ? "runs in isolated mode with argv and the scrubbed environment"
      : "is not offered without python3",
    async () => {
      if (!python) {
        expect(engine.languages).not.toContain("python");
        return;
      }
      const code =
        'import os, sys\nprint(sys.argv[1:], sys.flags.isolated, os.getcwd() == os.environ["HOME"], "TRESTLE_TEST_LEAK" in os.environ)';
      const result = await engine.run("python", code, { arguments: { arg0: "a", arg1: "b c" } });
      expect(result.stdout).toBe("['a', 'b c'] 1 True False\n");
      expect(result.final).toMatchObject({ status: ExecutionStatus.COMPLETED, exitCode: 0 });
    },
  );

  it(python ? "is stopped by its memory cap" : "has no memory cap to test without python3", async () => {
    if (!python) {
      expect(engine.languages).not.toContain("python");
      return;
    }
    const result = await engine.run("python", "hoard = bytearray(256 * 1024 * 1024)\nprint('allocated')");
    expect(result.stderr).toContain("MemoryError");
    expect(result.stdout).toBe("");
    expect(result.final.status).toBe(ExecutionStatus.FAILED);
  });
});

describe("Bash", () => {
  it("is off unless enabled", () => {
    expect(createExecService({ python: false }).languages).toEqual(["javascript"]);
    expect(createExecService({ python: false, enableBash: true }).languages).toEqual(["javascript", "bash"]);
  });
});
