import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { trestleCli } from "../../support/processes.js";

/** The tokens every provisioning and redaction red-team router is configured with. */
export const RED_ADMIN = "red-provisioning-admin-0123456789abcdef";
export const RED_MCP = "red-provisioning-mcp-0123456789abcdef";

/** A router started in a working directory of the test's choosing, with every output line kept. */
export interface WorkingDirectoryRouter {
  url: string;
  /** Every stdout and stderr line so far (the router's logs and its built-ins'). */
  lines: string[];
  stop(): Promise<void>;
}

/**
 * Starts `trestle serve` with `cwd` as its working directory (so that `--builtins` without `--root` serves
 * that directory, and the default data directory and service homes land in it), an admin and an mcp token,
 * and only the environment it needs: never the test runner's own.
 */
export async function startRouterIn(cwd: string, args: readonly string[]): Promise<WorkingDirectoryRouter> {
  const child: ChildProcess = spawn(process.execPath, [trestleCli, "serve", "--port", "0", ...args], {
    cwd,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      TRESTLE_PROBE_INTERVAL_MS: "1000",
      TRESTLE_TOKENS: JSON.stringify([
        { name: "operator", token: RED_ADMIN, scopes: ["admin"] },
        { name: "client", token: RED_MCP, scopes: ["mcp"] },
      ]),
    },
  });
  const lines: string[] = [];
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`router did not listen:\n${lines.join("\n")}`)), 60_000);
    const onLine = (line: string) => {
      lines.push(line);
      if (line.includes('"router listening"')) {
        clearTimeout(timer);
        resolve((JSON.parse(line) as { url: string }).url);
      }
    };
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on("line", onLine);
    createInterface({ input: child.stderr as NodeJS.ReadableStream }).on("line", onLine);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`router exited (${code}):\n${lines.join("\n")}`));
    });
  });
  return {
    url,
    lines,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const group = -(child.pid as number);
      try {
        process.kill(group, "SIGTERM");
      } catch {
        return;
      }
      const timer = setTimeout(() => {
        try {
          process.kill(group, "SIGKILL");
        } catch {
          // Already gone.
        }
      }, 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Calls the management API with the admin token; answers the status and the envelope. */
export async function adminCall<T = unknown>(
  routerUrl: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; data: T; error: { message: string } | null }> {
  const response = await fetch(`${routerUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${RED_ADMIN}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const envelope = (await response.json()) as { data: T; error: { message: string } | null };
  return { status: response.status, ...envelope };
}
