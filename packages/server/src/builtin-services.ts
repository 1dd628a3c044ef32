import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import type { Logger } from "pino";
import { type BuiltinLauncher, createBuiltinLauncher } from "./builtin-confinement.js";
import { builtinEntry } from "./builtin-entry.js";

/** A built-in capability service the router can start beside itself. */
export interface BuiltinService {
  /** `http`, `file` or `exec`. */
  name: string;
  /** The npm package that holds it. */
  packageName: string;
  /** Extra command-line arguments. */
  args: string[];
  /**
   * Extra environment variables for this service only (e.g. its `TRESTLE_CAPABILITY_SECRET`), added to the
   * minimal environment every built-in gets (see {@link builtinEnvironment}).
   */
  env?: Record<string, string>;
  /** Node flags for this service only, after those of every built-in ({@link builtinNodeFlags}). */
  nodeFlags?: readonly string[];
}

/**
 * Variables of the router's environment a built-in inherits: what a Node.js program needs to run and to
 * format text and times, and the CA bundle an operator adds for outbound TLS. Nothing else: the router's own
 * settings (tokens, database URL, session secret) never reach a built-in, nor the programs it runs.
 */
export const BUILTIN_INHERITED_ENV = [
  "PATH",
  "HOME",
  "LANG",
  "LC_ALL",
  "TZ",
  "TMPDIR",
  "NODE_EXTRA_CA_CERTS",
];

/**
 * Router settings a given built-in also inherits when the operator sets them: only the code execution engine's
 * deliberate opt-out of its sandbox, which the engine logs loudly.
 */
const BUILTIN_SETTINGS: Record<string, readonly string[]> = { exec: ["TRESTLE_EXEC_UNCONFINED"] };

/**
 * Set for every built-in: one malloc arena. With the default of one arena per thread, V8's background thread
 * (optimizing compilations) kept about 9 MiB of freed memory in an arena of its own in about half of the
 * readings (61 MiB resident idle, or 69–70); with one arena 13 of 15 readings were at 60–62, at the same CPU per
 * call (docs/performance.md). glibc reads it; other C libraries ignore it.
 */
export const BUILTIN_MALLOC_ENV: Readonly<Record<string, string>> = { MALLOC_ARENA_MAX: "1" };

/**
 * The whole environment of a built-in service: {@link BUILTIN_INHERITED_ENV} from `parent` when set, the
 * built-in's own settings, {@link BUILTIN_MALLOC_ENV}, `TRESTLE_ROUTER_TOKEN` (its register-only credential) and
 * the service's `env`.
 */
export function builtinEnvironment(
  service: Pick<BuiltinService, "name" | "env">,
  parent: Readonly<Record<string, string | undefined>>,
  token: string | undefined,
): Record<string, string> {
  const env: Record<string, string> = { ...BUILTIN_MALLOC_ENV };
  for (const key of [...BUILTIN_INHERITED_ENV, ...(BUILTIN_SETTINGS[service.name] ?? [])]) {
    const value = parent[key];
    if (value !== undefined) env[key] = value;
  }
  if (token !== undefined) env.TRESTLE_ROUTER_TOKEN = token;
  return { ...env, ...service.env };
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
    { name: "exec", packageName: "@trestle/service-exec", args: [], nodeFlags: EXEC_NODE_FLAGS },
  ];
}

/**
 * The code execution engine runs in V8's interpreter only. Its work per call is starting a sandbox and passing its
 * output on, which the program it runs dominates: at two calls at a time, 24–27 calls/s either way. Optimized code
 * bought nothing there, and compiling it touched about 4 MiB of the node binary's compiler code, so the engine
 * stayed at 53–54 MiB resident after a dozen calls instead of 49 (docs/performance.md). The HTTP service keeps its
 * optimizing compiler: interpreter-only it served 1,140–1,240 calls/s instead of 1,680 against a local upstream.
 */
export const EXEC_NODE_FLAGS: readonly string[] = ["--max-opt=0"];

/**
 * Node flags of the built-in services. They are small, mostly idle processes: a young generation of 1 MB
 * semi-spaces instead of up to 16 MB, and one V8 background thread instead of one per core (each thread keeps its
 * own malloc arena), measured 10–15 MiB less resident per service when idle. A first old-generation limit of
 * 4 MB and V8's memory-over-speed mode make the first full collection come soon after start, so the start's
 * garbage is freed and V8's memory reducer runs from then on: without them a built-in idled at 72–73 MiB in 9 of
 * 12 readings (the start's garbage still held), with them at 61–62 MiB in 10 of 12 and about half of later
 * readings (docs/performance.md).
 *
 * Then the JIT tiers, for this Node's V8 (`v8Version`, this process's by default; the built-ins run on the
 * router's own node): no baseline (Sparkplug) code, and optimization after more work than V8's default (10
 * profiler ticks instead of 3 on V8 11, Node 20; three times the invocation counts on V8 12 and later, Node 22 and
 * 24, which count invocations instead). A built-in's start runs once; compiling it touches about 4 MiB of the
 * node binary's compiler code, which the bundled built-ins (see `builtinEntry`) no longer need while idle: 50 → 49
 * MiB without Sparkplug, 53–54 → 50 with the later tier-up. A built-in under load still reaches optimized code
 * within its first seconds; the echo capability's CPU per call measured the same (88–95 µs warm, 128–138 µs over
 * its first two seconds, in one interleaved run of each).
 * Throughput of a built-in is bounded by what it calls (HTTP, files, programs), not by its garbage collector or
 * its compiler; a JSON-heavy loop ran as fast under these flags.
 *
 * No on-stack replacement: a loop that runs long in one call stays in the interpreter, while functions called
 * often still optimize. A built-in's start decodes its protobuf descriptors (base64, one long loop per file) once;
 * on Node 24 that loop was compiled on the stack by Maglev and often by Turbofan as well, and an idle
 * service-http or service-file held 70–71 MiB resident instead of 64–66 (the compilers' code pages of the node
 * binary; the same anonymous memory and PSS; Node 20 unchanged at 49). A request handler's loops are short: OSR
 * does not serve a built-in.
 */
export function builtinNodeFlags(v8Version: string = process.versions.v8): string[] {
  const tiering =
    Number.parseInt(v8Version, 10) >= 12
      ? [
          "--invocation-count-for-maglev=1200",
          "--invocation-count-for-turbofan=9000",
          "--invocation-count-for-osr=1500",
        ]
      : ["--ticks-before-optimization=10"];
  return [
    "--max-semi-space-size=1",
    "--v8-pool-size=1",
    "--initial-old-space-size=4",
    "--optimize-for-size",
    "--no-sparkplug",
    "--no-use-osr",
    ...tiering,
  ];
}

/** Running built-in services. */
export interface BuiltinProcesses {
  /** Resolves when each has printed its ready line (or rejects with the one that failed). */
  ready: Promise<void>;
  /** Stops them all (SIGTERM, then SIGKILL after a grace period). */
  stop(): Promise<void>;
  /**
   * The registration ids they announced (their `registered` events). A clean stop removes these from the registry
   * itself: the services' own deregistration cannot reach a router whose listener has closed.
   */
  registeredIds(): string[];
}

/**
 * Starts the built-in services as child processes that register with the router at `routerUrl`. Each runs as
 * its own process, as a capability service on another machine would, with only the environment
 * {@link builtinEnvironment} gives it, and (through `launcher`, by default {@link createBuiltinLauncher}'s) in a
 * PID namespace of its own, where the router's process and its /proc entries are not visible. `token` should be a
 * register-only credential made for them (never an operator's token: whatever a built-in holds, the programs it
 * runs may reach).
 */
export function startBuiltinServices(
  services: readonly BuiltinService[],
  options: { routerUrl: string; token?: string; logger: Logger; launcher?: BuiltinLauncher },
): BuiltinProcesses {
  const children: ChildProcess[] = [];
  const readies: Promise<void>[] = [];
  const registered = new Set<string>();
  let stopping = false;
  const flags = builtinNodeFlags();
  const digests = new Map<string, string | undefined>();
  const launcher = options.launcher ?? createBuiltinLauncher();
  if (launcher.confined) {
    options.logger.info("built-in services start in a PID namespace of their own");
  } else {
    options.logger.warn(
      { reason: launcher.reason },
      "built-in services start without a PID namespace of their own: they can read the router's /proc entries, its environment among them",
    );
  }
  for (const service of services) {
    const log = options.logger.child({ builtin: service.name });
    const entry = builtinEntry(service.packageName, { digests });
    if (!entry.bundled) log.warn(`starting from ${entry.path}, not from its bundle: ${entry.reason}`);
    const started = launcher.command(process.execPath, [
      ...flags,
      ...(service.nodeFlags ?? []),
      entry.path,
      "--router",
      options.routerUrl,
      ...service.args,
    ]);
    const child = spawn(started.file, started.args, {
      stdio: ["ignore", "pipe", "pipe"],
      env: builtinEnvironment(service, process.env, options.token),
      // unshare ignores SIGTERM: a group of their own lets stop() reach the service inside.
      detached: launcher.confined,
    });
    children.push(child);
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
          if (event && typeof event === "object" && "event" in event) {
            const { type, id } = event as { type?: unknown; id?: unknown };
            if (type === "registered" && typeof id === "string") registered.add(id);
            // Stopping, a service's own DELETE meets the closed listener: the router deregisters it instead.
            if (stopping && type === "deregistration-failed") log.debug(event, "built-in service event");
            else log.info(event, "built-in service event");
          } else log.warn(line);
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
    registeredIds: () => [...registered],
    async stop() {
      stopping = true;
      await Promise.all(
        children.map(
          (child) =>
            new Promise<void>((resolve) => {
              if (child.exitCode !== null || child.signalCode !== null) return resolve();
              const signal = (name: NodeJS.Signals) => {
                try {
                  if (launcher.confined && child.pid !== undefined) process.kill(-child.pid, name);
                  else child.kill(name);
                } catch {
                  // Already gone.
                }
              };
              const timer = setTimeout(() => signal("SIGKILL"), 5_000);
              child.once("exit", () => {
                clearTimeout(timer);
                resolve();
              });
              signal("SIGTERM");
            }),
        ),
      );
    },
  };
}
