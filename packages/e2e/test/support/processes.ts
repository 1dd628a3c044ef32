import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { createInterface } from "node:readline";

/** The repository root. */
export const repoRoot = join(import.meta.dirname, "..", "..", "..", "..");
/** The built `trestle` CLI. */
export const trestleCli = join(repoRoot, "packages", "server", "dist", "cli.js");
/** The fixture capability service. */
export const fixtureCapability = join(repoRoot, "packages", "e2e", "fixtures", "fixture-capability.mjs");

/** A child process started in its own process group, with every output line kept. */
export interface RunningProcess {
  child: ChildProcess;
  /** Every stdout and stderr line so far. */
  lines: string[];
  /** Resolves with the first line that matches, or rejects when the process exits first or time runs out. */
  waitForLine(match: (line: string) => boolean, timeoutMs?: number): Promise<string>;
  /** SIGTERM to the group, SIGKILL after `graceMs`; resolves with the exit code. */
  stop(graceMs?: number): Promise<number | null>;
}

const running = new Set<RunningProcess>();

/** Where and with what a process of {@link startNode} starts, besides its environment's additions. */
export interface StartNodeOptions {
  /** Its working directory (default: this process's). */
  cwd?: string;
  /** Variables of this process's environment it does not get. */
  unset?: readonly string[];
}

/** Starts `node [nodeArgs] script args` in its own process group. */
export function startNode(
  script: string,
  args: readonly string[],
  env: Record<string, string> = {},
  nodeArgs: readonly string[] = [],
  options: StartNodeOptions = {},
): RunningProcess {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env };
  for (const name of options.unset ?? []) delete childEnv[name];
  const child = spawn(process.execPath, [...nodeArgs, script, ...args], {
    detached: true,
    stdio: ["pipe", "pipe", "pipe"],
    env: childEnv,
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
  });
  const lines: string[] = [];
  const waiters = new Set<() => void>();
  const onLine = (line: string) => {
    lines.push(line);
    for (const w of waiters) w();
  };
  createInterface({ input: child.stdout as NodeJS.ReadableStream }).on("line", onLine);
  createInterface({ input: child.stderr as NodeJS.ReadableStream }).on("line", onLine);
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));

  const proc: RunningProcess = {
    child,
    lines,
    waitForLine(match, timeoutMs = 30_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = lines.find(match);
          if (found !== undefined) {
            cleanup();
            resolve(found);
          }
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(
            new Error(`no matching line within ${timeoutMs} ms; output:\n${lines.slice(-30).join("\n")}`),
          );
        }, timeoutMs);
        const onExit = (code: number | null) => {
          cleanup();
          reject(
            new Error(`process exited (${code}) before the line; output:\n${lines.slice(-30).join("\n")}`),
          );
        };
        const cleanup = () => {
          clearTimeout(timer);
          waiters.delete(check);
          child.off("exit", onExit);
        };
        waiters.add(check);
        child.once("exit", onExit);
        check();
      });
    },
    async stop(graceMs = 10_000) {
      running.delete(proc);
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      const pid = child.pid as number;
      try {
        process.kill(-pid, "SIGTERM");
      } catch {
        return child.exitCode;
      }
      const timer = setTimeout(() => {
        try {
          process.kill(-pid, "SIGKILL");
        } catch {
          // already gone
        }
      }, graceMs);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
  running.add(proc);
  return proc;
}

/** Stops every process still running (for afterAll/afterEach). */
export async function stopAll(): Promise<void> {
  await Promise.all([...running].map((p) => p.stop(3_000)));
}

/** A running router. */
export interface RouterProcess extends RunningProcess {
  url: string;
}

/**
 * Starts `trestle serve` on port 0 with an embedded in-memory store (unless the flags name a store), and waits
 * for it to listen. `nodeArgs` go to node itself (V8 flags, for instance).
 */
export async function startRouter(
  args: readonly string[] = [],
  env: Record<string, string> = {},
  nodeArgs: readonly string[] = [],
): Promise<RouterProcess> {
  const storeArgs = args.some((a) => a === "--data-dir" || a === "--database-url") ? [] : ["--memory-store"];
  const proc = startNode(
    trestleCli,
    ["serve", "--port", "0", "--log-level", "info", ...storeArgs, ...args],
    { TRESTLE_PROBE_INTERVAL_MS: "1000", ...env },
    nodeArgs,
  );
  const line = await proc.waitForLine((l) => l.includes('"router listening"'), 60_000);
  return Object.assign(proc, { url: (JSON.parse(line) as { url: string }).url });
}

/** Starts the fixture capability registered with `routerUrl`, and waits until it is registered. */
export async function startFixtureCapability(
  routerUrl: string,
  args: readonly string[] = [],
): Promise<RunningProcess & { port: number; id: string }> {
  const proc = startNode(fixtureCapability, ["--router", routerUrl, ...args]);
  // A loaded machine (the built-ins starting beside it) can take a while to start node and register.
  const line = await proc.waitForLine((l) => l.includes('"ready"'), 60_000);
  const ready = JSON.parse(line) as { port: number; id: string };
  return Object.assign(proc, { port: ready.port, id: ready.id });
}

/** Starts the fixture capability as a `tool-invoker` named `serviceName`, served over `protocol`. */
export function startToolInvoker(
  routerUrl: string,
  serviceName: string,
  protocol: "grpc" | "connect",
): Promise<RunningProcess & { port: number; id: string }> {
  return startFixtureCapability(routerUrl, [
    "--service-name",
    serviceName,
    "--protocol",
    protocol,
    "--service-type",
    "tool-invoker",
  ]);
}

/** A tool definition served by the fixture capability's echo (it answers with the arguments it was called with). */
export function echoTool(name: string, type: string) {
  return {
    name,
    description: "Echoes its arguments",
    uri: "fixture://echo",
    type,
    inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  };
}

/** Calls the management API and returns `data`; throws with the router's message on an error status. */
export async function api<T = unknown>(
  routerUrl: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<T> {
  const response = await fetch(`${routerUrl}${path}`, {
    method,
    headers: { ...(body !== undefined ? { "content-type": "application/json" } : {}), ...headers },
    ...(body !== undefined ? { body: typeof body === "string" ? body : JSON.stringify(body) } : {}),
  });
  const envelope = (await response.json()) as { error: { message: string } | null; data: T };
  if (!response.ok) throw new Error(`${response.status} ${envelope.error?.message}`);
  return envelope.data;
}

/** Waits until `check` passes or the time runs out. */
export async function eventually<T>(
  check: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 15_000,
  what = "condition",
): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value as T;
    if (Date.now() > end) throw new Error(`${what} not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Waits until a service named `name` is healthy in the router's registry (`headers`: an admin token's). */
export function serviceHealthy(
  routerUrl: string,
  name: string,
  headers: Record<string, string> = {},
): Promise<true> {
  return eventually(
    async () => {
      const services = await api<{ health: string; target: { serviceName: string } }[]>(
        routerUrl,
        "GET",
        "/api/v1/capabilities",
        undefined,
        headers,
      );
      return services.some((s) => s.target.serviceName === name && s.health === "healthy") ? true : undefined;
    },
    20_000,
    `service '${name}' healthy`,
  );
}
