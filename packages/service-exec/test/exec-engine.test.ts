import { existsSync } from "node:fs";
import { Code, isTrestleError } from "@trestle/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ExecutionStatus,
  liveProcessesIn,
  OutputType,
  type ServedEngine,
  serveEngine,
  statuses,
} from "./engine-fixture.js";

let engine: ServedEngine;

beforeAll(async () => {
  engine = await serveEngine({ enableBash: true, maxOutputBytes: 64 * 1024, killGraceMs: 300 });
});

afterAll(async () => {
  await engine?.close();
});

/** Waits (bounded) until a condition holds, for effects that settle just after an event. */
async function eventually(check: () => boolean, withinMs = 3_000): Promise<boolean> {
  const deadline = Date.now() + withinMs;
  while (!check()) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return true;
}

describe("a run", () => {
  it("answers PENDING, RUNNING, its output, then COMPLETED with exit code 0", async () => {
    const result = await engine.run("javascript", 'console.log("args:" + process.argv.slice(2).join("|"))', {
      arguments: { arg1: "two words", arg0: "one", arg2: "$(not a shell)" },
    });
    expect(statuses(result).slice(0, 2)).toEqual([ExecutionStatus.PENDING, ExecutionStatus.RUNNING]);
    expect(result.replies[0]?.reply.outputType).toBe(OutputType.STATUS);
    expect(result.stdout).toBe("args:one|two words|$(not a shell)\n");
    expect(result.final).toMatchObject({ status: ExecutionStatus.COMPLETED, exitCode: 0 });
    expect(result.final.timestamp).toBeDefined();
  });

  it("answers FAILED with the exit code of a failing program, stderr included", async () => {
    const result = await engine.run("javascript", 'console.error("bad thing"); process.exit(3)');
    expect(result.stderr).toContain("bad thing");
    expect(result.final).toMatchObject({ status: ExecutionStatus.FAILED, exitCode: 3 });
  });

  it("streams output as it is produced", async () => {
    const code = `
      console.log("first");
      setTimeout(() => console.log("second"), 1000);
      setTimeout(() => console.log("last"), 2000);`;
    const result = await engine.run("javascript", code);
    const arrivals = result.replies.filter((r) => r.reply.outputType === OutputType.STDOUT);
    const first = arrivals.find((r) => r.reply.content.join("").includes("first"));
    const last = arrivals.find((r) => r.reply.content.join("").includes("last"));
    expect(first && last).toBeTruthy();
    // The first line reached the client while the program still had most of its two seconds to go.
    expect((last?.at ?? 0) - (first?.at ?? 0)).toBeGreaterThan(1_500);
    expect(result.final.status).toBe(ExecutionStatus.COMPLETED);
  });

  it("kills an infinite loop at the timeout, with everything it started", async () => {
    const code = 'sleep 300 &\necho "$PWD"\nwhile :; do :; done\n';
    const started = Date.now();
    let whileRunning: number[] = [];
    const result = await engine.run("bash", code, {
      timeout: 1_000n,
      onReply(reply) {
        if (reply.outputType === OutputType.STDOUT && whileRunning.length === 0) {
          whileRunning = liveProcessesIn(reply.content.join("").trim());
        }
      },
    });
    expect(result.final.status).toBe(ExecutionStatus.TIMEOUT);
    expect(result.final.content.join("")).toContain("Timed out after 1000 ms");
    expect(Date.now() - started).toBeLessThan(10_000);
    // The sandbox, the loop and the background sleep were seen running ...
    expect(whileRunning.length).toBeGreaterThanOrEqual(3);
    // ... and none of them runs any more once the final reply is out.
    expect(liveProcessesIn(result.stdout.trim())).toEqual([]);
  });

  it("kills what a finished program left running in the background", async () => {
    const code = 'sleep 300 &\necho "$PWD"\nsleep 0.3\nexit 0\n';
    let whileRunning: number[] = [];
    const result = await engine.run("bash", code, {
      onReply(reply) {
        if (reply.outputType === OutputType.STDOUT && whileRunning.length === 0) {
          whileRunning = liveProcessesIn(reply.content.join("").trim());
        }
      },
    });
    expect(result.final).toMatchObject({ status: ExecutionStatus.COMPLETED, exitCode: 0 });
    expect(whileRunning.length).toBeGreaterThanOrEqual(3);
    expect(liveProcessesIn(result.stdout.trim())).toEqual([]);
  });

  it("kills a JavaScript busy loop at the timeout", async () => {
    let whileRunning: number[] = [];
    const result = await engine.run("javascript", "console.log(process.cwd()); for (;;) {}", {
      timeout: 800n,
      onReply(reply) {
        if (reply.outputType === OutputType.STDOUT && whileRunning.length === 0) {
          whileRunning = liveProcessesIn(reply.content.join("").trim());
        }
      },
    });
    expect(result.final.status).toBe(ExecutionStatus.TIMEOUT);
    expect(whileRunning.length).toBeGreaterThan(0);
    expect(await eventually(() => liveProcessesIn(result.stdout.trim()).length === 0)).toBe(true);
  });

  it("cuts output past the cap with a clear note and stops the program", async () => {
    const code = 'const line = "x".repeat(1000) + "\\n"; for (;;) process.stdout.write(line);';
    const result = await engine.run("javascript", code, { timeout: 20_000n });
    expect(result.stdout.length).toBeLessThanOrEqual(64 * 1024);
    expect(result.stdout.length).toBeGreaterThan(60 * 1024);
    expect(result.stderr).toContain("[output cut: more than 65536 bytes; the program was stopped]");
    expect(result.final.status).toBe(ExecutionStatus.FAILED);
    expect(result.final.content.join("")).toContain("Output exceeded 65536 bytes");
  });

  it("stops the program and removes its work directory when the call is aborted", async () => {
    const controller = new AbortController();
    const code = 'console.log(process.cwd()); setInterval(() => console.log("tick"), 50);';
    let info = "";
    let whileRunning: number[] = [];
    const outcome = await engine
      .run("javascript", code, {
        signal: controller.signal,
        onReply(reply) {
          if (reply.outputType === OutputType.STDOUT && info === "") {
            info = reply.content.join("").trim();
            whileRunning = liveProcessesIn(info);
            controller.abort();
          }
        },
      })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(isTrestleError(outcome, Code.Canceled)).toBe(true);
    expect(whileRunning.length).toBeGreaterThan(0);
    expect(await eventually(() => liveProcessesIn(info).length === 0)).toBe(true);
    expect(await eventually(() => !existsSync(info || "/"))).toBe(true);
  });
});

describe("refused requests", () => {
  it.each([
    ["an unknown language", "cobol", {}, "not enabled on this engine"],
    [
      "an environment variable that would widen Node's permissions",
      "javascript",
      { environment: { NODE_OPTIONS: "--allow-fs-read=*" } },
      "NODE_OPTIONS",
    ],
    ["a loader variable", "javascript", { environment: { LD_PRELOAD: "/tmp/x.so" } }, "LD_PRELOAD"],
    ["arguments with a gap", "javascript", { arguments: { arg0: "a", arg2: "c" } }, "arg1 is missing"],
    ["named arguments", "javascript", { arguments: { name: "x" } }, "not a positional argument"],
  ])("refuses %s", async (_what, language, extra, message) => {
    const error = await engine.run(language, "console.log(1)", extra).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isTrestleError(error, Code.InvalidArgument)).toBe(true);
    expect((error as Error).message).toContain(message);
  });
});
