import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Duplex } from "node:stream";
import {
  type CodeModeTool,
  JAVASCRIPT_PRELUDE_FILE,
  javascriptPrelude,
  PYTHON_PRELUDE_FILE,
  pythonPrelude,
  serveToolChannel,
  type ToolChannel,
  type ToolChannelHandler,
  type ToolChannelSummary,
} from "../../src/index.js";
import { CHILD_ENV, python3 } from "./interpreters.js";

/** How a program run went. */
export interface ProgramRun {
  code: number | null;
  stdout: string;
  stderr: string;
  summary: ToolChannelSummary;
}

/** What to run: a program in a language, with a prelude for `tools`, and the fake router's answers. */
export interface ProgramSpec {
  language: "javascript" | "python";
  tools: CodeModeTool[];
  program: string;
  handler: ToolChannelHandler;
  args?: string[];
  /** Called with the router's end of the channel once it is served (to close it from a handler). */
  onChannel?: (channel: ToolChannel) => void;
  /** Extra interpreter flags; `{dir}` is replaced by the run's directory. */
  flags?: string[];
  timeoutMs?: number;
}

/**
 * Runs a program as a real child process (node or python3) in a fresh directory, with the prelude written next
 * to it and the tool channel on fd 3 served by `serveToolChannel` with the given handler. The child gets only
 * a PATH. A child that outlives the timeout is killed (the run then reports a null code). The run ends when the
 * channel has closed and its calls have settled: handlers must settle, at the latest when their signal aborts.
 */
export async function runProgram(spec: ProgramSpec): Promise<ProgramRun> {
  const dir = mkdtempSync(join(tmpdir(), "code-mode-run-"));
  try {
    const javascript = spec.language === "javascript";
    writeFileSync(
      join(dir, javascript ? JAVASCRIPT_PRELUDE_FILE : PYTHON_PRELUDE_FILE),
      javascript ? javascriptPrelude(spec.tools) : pythonPrelude(spec.tools),
    );
    writeFileSync(join(dir, javascript ? "main.mjs" : "main.py"), spec.program);
    const flags = (spec.flags ?? []).map((f) => f.replaceAll("{dir}", dir));
    const [command, args] = javascript
      ? [
          process.execPath,
          [...flags, "--import", `./${JAVASCRIPT_PRELUDE_FILE}`, "main.mjs", ...(spec.args ?? [])],
        ]
      : [python3(), [...flags, "-u", PYTHON_PRELUDE_FILE, "main.py", ...(spec.args ?? [])]];
    const child = spawn(command, args, {
      cwd: dir,
      env: CHILD_ENV,
      stdio: ["ignore", "pipe", "pipe", "pipe"],
    });
    const channel = serveToolChannel(child.stdio[3] as Duplex, spec.handler);
    spec.onChannel?.(channel);
    let stdout = "";
    let stderr = "";
    child.stdout?.on("data", (d) => {
      stdout += d;
    });
    child.stderr?.on("data", (d) => {
      stderr += d;
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), spec.timeoutMs ?? 15_000);
    const code = await new Promise<number | null>((resolve) => child.on("close", (c) => resolve(c)));
    clearTimeout(timer);
    channel.close();
    return { code, stdout, stderr, summary: await channel.closed };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
