import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { createInterface } from "node:readline";

/** A service started as its own process, with its ready line read. */
export interface ServiceProcess {
  child: ChildProcessWithoutNullStreams;
  ready: { event: string; service: string; host: string; port: number };
  stderr(): string;
  /** Sends SIGTERM and resolves with the exit code (SIGKILL after `withinMs`). */
  stop(withinMs?: number): Promise<number | null>;
}

/**
 * Starts `node script ...args` and waits (at most `timeoutMs`) for its first stdout line, the JSON ready
 * line. Rejects with the process's stderr when it exits or stays silent instead.
 */
export function startServiceProcess(
  script: string,
  args: string[],
  env: Record<string, string>,
  timeoutMs = 15_000,
): Promise<ServiceProcess> {
  const child = spawn(process.execPath, [script, ...args], {
    env: { PATH: process.env.PATH ?? "", ...env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const stop = async (withinMs = 5_000) => {
    if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), withinMs);
    const code = await exited;
    clearTimeout(timer);
    return code;
  };
  return new Promise<ServiceProcess>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout });
    const timer = setTimeout(() => {
      void stop(0);
      reject(new Error(`no ready line within ${timeoutMs} ms; stderr: ${stderr}`));
    }, timeoutMs);
    lines.once("line", (line) => {
      clearTimeout(timer);
      resolve({ child, ready: JSON.parse(line), stderr: () => stderr, stop });
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before its ready line; stderr: ${stderr}`));
    });
  });
}
