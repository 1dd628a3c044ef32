import { type ChildProcess, spawn } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import type { Logger } from "pino";

/** A built-in capability service the router can start beside itself. */
export interface BuiltinService {
  /** `http`, `file` or `exec`. */
  name: string;
  /** The npm package that holds it. */
  packageName: string;
  /** Extra command-line arguments. */
  args: string[];
}

/** The built-in services: HTTP tools, file resources, code execution. */
export function defaultBuiltins(options: { fileRoots: string[] }): BuiltinService[] {
  return [
    { name: "http", packageName: "@trestle/service-http", args: [] },
    {
      name: "file",
      packageName: "@trestle/service-file",
      args: options.fileRoots.flatMap((r) => ["--root", r]),
    },
    { name: "exec", packageName: "@trestle/service-exec", args: [] },
  ];
}

/** Where a service package's `bin` script is, resolved from this package. */
function binOf(packageName: string): string {
  const require = createRequire(import.meta.url);
  const manifestPath = require.resolve(`${packageName}/package.json`);
  const manifest = require(manifestPath) as { bin: Record<string, string> };
  const bin = Object.values(manifest.bin)[0];
  if (!bin) throw new Error(`${packageName} declares no bin`);
  return join(dirname(manifestPath), bin);
}

/** Running built-in services. */
export interface BuiltinProcesses {
  /** Resolves when each has printed its ready line (or rejects with the one that failed). */
  ready: Promise<void>;
  /** Stops them all (SIGTERM, then SIGKILL after a grace period). */
  stop(): Promise<void>;
}

/**
 * Starts the built-in services as child processes that register with the router at `routerUrl`. Each runs as
 * its own process, as a capability service on another machine would.
 */
export function startBuiltinServices(
  services: readonly BuiltinService[],
  options: { routerUrl: string; token?: string; logger: Logger },
): BuiltinProcesses {
  const children: ChildProcess[] = [];
  const readies: Promise<void>[] = [];
  for (const service of services) {
    const child = spawn(
      process.execPath,
      [binOf(service.packageName), "--router", options.routerUrl, ...service.args],
      {
        stdio: ["ignore", "pipe", "pipe"],
        env: { ...process.env, ...(options.token ? { TRESTLE_ROUTER_TOKEN: options.token } : {}) },
      },
    );
    children.push(child);
    const log = options.logger.child({ builtin: service.name });
    readies.push(
      new Promise<void>((resolve, reject) => {
        const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
        lines.on("line", (line) => {
          if (line.includes('"ready"')) {
            log.info({ line: JSON.parse(line) }, "built-in service ready");
            resolve();
          } else log.info(line);
        });
        // The services write JSON events (registration, …) on stderr; anything else is a warning.
        createInterface({ input: child.stderr as NodeJS.ReadableStream }).on("line", (line) => {
          let event: unknown;
          try {
            event = JSON.parse(line);
          } catch {
            event = undefined;
          }
          if (event && typeof event === "object" && "event" in event)
            log.info(event, "built-in service event");
          else log.warn(line);
        });
        child.once("exit", (code) =>
          reject(new Error(`built-in service '${service.name}' exited with code ${code}`)),
        );
        child.once("error", reject);
      }),
    );
  }
  return {
    ready: Promise.all(readies).then(() => undefined),
    async stop() {
      await Promise.all(
        children.map(
          (child) =>
            new Promise<void>((resolve) => {
              if (child.exitCode !== null || child.signalCode !== null) return resolve();
              const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
              child.once("exit", () => {
                clearTimeout(timer);
                resolve();
              });
              child.kill("SIGTERM");
            }),
        ),
      );
    },
  };
}
