import type { ChildProcess } from "node:child_process";
import { ROUTER_MALLOC_ENV, ROUTER_NODE_FLAGS } from "@trestle/server/launch";
import { captureOutput, spawnNode, stopChild, waitForOutput } from "./child-process.js";
import { routerCli } from "./paths.js";

/** A Trestle router running in its own process. */
export interface RouterProcess {
  readonly child: ChildProcess;
  readonly pid: number;
  /** `http://127.0.0.1:PORT`. */
  readonly url: string;
  /** What it printed last (for error messages). */
  output(): string;
  /** SIGTERM, then waits for it to exit (a `--cpu-prof` profile is written on that exit). */
  stop(): Promise<void>;
}

/** Options for {@link startRouter}. */
export interface StartRouterOptions {
  /** Flags for `trestle serve` besides `--port 0 --log-level warn`; default `--memory-store`. */
  args?: readonly string[];
  /**
   * Flags for node (e.g. `--cpu-prof`), after the router's launch flags (`ROUTER_NODE_FLAGS`, as `pnpm start`
   * gives them): a flag given again here wins.
   */
  nodeArgs?: readonly string[];
  /** The node binary to run the router on; default: the harness's own. */
  node?: string;
  cwd?: string;
  /** The router's `TRESTLE_*` settings (and any other variable), over {@link routerEnvironment}'s. */
  env?: Record<string, string>;
}

/**
 * The environment a router under test gets: the harness's, without any `TRESTLE_*` variable (a token list or a
 * limit set in the shell that runs the harness would otherwise change what is measured), then `extra`.
 */
export function routerEnvironment(
  parent: Readonly<Record<string, string | undefined>>,
  extra: Readonly<Record<string, string>> = {},
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(parent))
    if (value !== undefined && !key.startsWith("TRESTLE_")) env[key] = value;
  return { ...env, ...extra };
}

/** Starts `trestle serve` on a free port and waits until it serves (it prints its MCP URL). */
export async function startRouter(options: StartRouterOptions = {}): Promise<RouterProcess> {
  const child = spawnNode(
    routerCli,
    ["serve", ...(options.args ?? ["--memory-store"]), "--port", "0", "--log-level", "warn"],
    {
      // As `pnpm start` and the container start it: the same flags and malloc settings (the shell's win).
      nodeArgs: [...ROUTER_NODE_FLAGS, ...(options.nodeArgs ?? [])],
      ...(options.node ? { node: options.node } : {}),
      ...(options.cwd ? { cwd: options.cwd } : {}),
      env: { ...ROUTER_MALLOC_ENV, ...routerEnvironment(process.env, options.env) },
    },
  );
  const output = captureOutput(child);
  try {
    const match = await waitForOutput(child, /serving MCP at (http:\/\/\S+?)\/mcp/, 120_000);
    return {
      child,
      pid: child.pid as number,
      url: match[1] as string,
      output,
      stop: () => stopChild(child),
    };
  } catch (error) {
    await stopChild(child);
    throw new Error(`The router did not start: ${(error as Error).message}`);
  }
}

/**
 * Calls the router's management API and returns the response's `data`.
 * @throws Error with the status and body when the router refuses.
 */
export async function manage<T = unknown>(
  routerUrl: string,
  method: string,
  path: string,
  body?: unknown,
  /** Extra request headers (an admin token's `authorization`, for a router with tokens). */
  headers: Record<string, string> = {},
): Promise<T> {
  const response = await fetch(`${routerUrl}${path}`, {
    method,
    headers: body === undefined ? headers : { "content-type": "application/json", ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: HTTP ${response.status} ${text.slice(0, 300)}`);
  const parsed = text ? (JSON.parse(text) as { data?: T }) : {};
  return parsed.data as T;
}
