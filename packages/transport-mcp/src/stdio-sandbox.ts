import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { homedir, tmpdir, userInfo } from "node:os";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { Code, TrestleError } from "@trestle/core";
import {
  bwrapArguments,
  SANDBOX_HOME,
  SANDBOX_NAMESPACE_ARGUMENTS,
  type SandboxMask,
  systemBindArguments,
} from "./bwrap-arguments.js";
import { describeUpstream, type McpStdioUpstream } from "./mcp-upstream.js";
import { isUnder, locateProgram, SYSTEM_DIRECTORIES } from "./program-location.js";

/** Where Debian's `bubblewrap` package installs `bwrap`. */
export const DEFAULT_BWRAP_PATH = "/usr/bin/bwrap";

/** The system part of a sandboxed server's `PATH`, after the directories of its program and interpreters. */
export const SANDBOX_SYSTEM_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/** How a stdio server is started: the process to spawn, its whole environment and working directory. */
export interface StdioLaunch {
  command: string;
  args: string[];
  /** The process's whole environment (the MCP SDK adds `HOME`, `LOGNAME`, `PATH`, `SHELL`, `TERM`, `USER` when absent). */
  env: Record<string, string>;
  cwd?: string;
  /** False for a server that opted out (`sandbox: false`). */
  sandboxed: boolean;
}

/** A stdio server that opted out of the sandbox is being started. */
export interface UnconfinedStartEvent {
  /** The key it was started under (a router's forward: its service name). */
  key: string;
  /** Its safe name: `'node'`. */
  upstream: string;
}

/** Options for {@link createStdioSandbox}. */
export interface StdioSandboxOptions {
  /**
   * The directory that holds each sandboxed server's private home (`<homesDirectory>/<key>/home`, mode 0700), kept
   * across restarts so that a second `npx -y` or `uvx` start finds its cache. Default: a temporary directory made at
   * the first start and removed by `dispose()`.
   */
  homesDirectory?: string;
  /** The bubblewrap program. Default {@link DEFAULT_BWRAP_PATH}. */
  bwrapPath?: string;
  /**
   * Host paths no sandboxed server may see, even when a path it is shown holds them (its working directory, a
   * path in its arguments): the router's data directory, configuration and key files. Each is hidden by an empty
   * directory or an empty file; a working directory or writable path inside one is refused.
   */
  hiddenPaths?: readonly string[];
  /** Called each time a server that opted out (`sandbox: false`) is started: a router logs it as a warning. */
  onUnconfinedStart?(event: UnconfinedStartEvent): void;
}

/** Starts stdio servers in a bubblewrap sandbox each, or unconfined where an upstream opts out. */
export interface StdioSandbox {
  /**
   * How to start `upstream` under `key` (one home per key: a router uses the forward's service name).
   *
   * @throws TrestleError `FailedPrecondition` when the sandbox cannot run here (no bubblewrap, no namespaces),
   * naming the fix; `Unavailable` when the program or its working directory is not found, or a writable path
   * does not exist; `FailedPrecondition` when its working directory or a writable path is one of the hidden ones.
   */
  launch(upstream: McpStdioUpstream, key: string): StdioLaunch;
  /** Removes the temporary homes directory it made, if it made one. */
  dispose(): void;
}

/** Paths that would show the host's own processes, devices or kernel: never bound from the host. */
const NEVER_SHOWN = ["/proc", "/sys", "/dev"];

function isSystemPath(path: string): boolean {
  return SYSTEM_DIRECTORIES.some((system) => isUnder(path, system));
}

/** The existing absolute paths an argument names: the argument itself, or the value of `--name=/path`. */
function pathsInArgument(arg: string): string[] {
  const candidates = [arg];
  const equals = arg.indexOf("=");
  if (equals >= 0) candidates.push(arg.slice(equals + 1));
  return candidates.filter((c) => isAbsolute(c) && existsSync(c)).map((c) => resolve(c));
}

/** The name of a key's directory: the key when it is a plain file name, else a digest of it. */
function homeName(key: string): string {
  if (/^[A-Za-z0-9_.-]{1,100}$/.test(key) && key !== "." && key !== "..") return key;
  return `key-${createHash("sha256").update(key).digest("hex").slice(0, 24)}`;
}

function writeIfChanged(path: string, content: string): void {
  try {
    if (readFileSync(path, "utf8") === content) return;
  } catch {
    // Not there yet.
  }
  writeFileSync(path, content, { mode: 0o600 });
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** The user the sandbox shows: the router's uid and gid (the user namespace maps them to themselves). */
function sandboxUser(): { name: string; uid: number; gid: number } {
  let name = "forward";
  try {
    name = userInfo().username || name;
  } catch {
    // No passwd entry for the router's uid: the sandbox names it anyway.
  }
  return { name, uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 };
}

function firstLine(text: string): string {
  return text.trim().split("\n")[0]?.trim().slice(0, 300) ?? "";
}

/**
 * Creates the {@link StdioSandbox}: each sandboxed server runs under bubblewrap in new user, PID, IPC, UTS and
 * cgroup namespaces with the host's network, no capabilities, its own `/proc` (so no other process of the machine,
 * the router included, is visible: not its environment, command line or files), a minimal `/dev`, a private `/tmp`
 * and `/dev/shm`, and a read-only root that shows: the system directories and a few /etc files (TLS roots, name
 * resolution, time zone); a passwd and group of its own; the installation of its program and of the program's
 * `#!` interpreter (e.g. nvm's node); its `cwd`; the absolute paths among its arguments (a script, a directory it
 * serves); `writablePaths`, writable; and a private home at `/home/forward`, writable and kept across restarts in
 * `homesDirectory`. Its environment is `HOME`, `PATH` (its program's directories, then the system's), `LANG`,
 * `SHELL`, `TERM`, `USER`, `LOGNAME` and its own `env`, nothing of the router's.
 *
 * Before the first sandboxed start it checks once that bubblewrap runs here; when it does not, starts fail with
 * one sentence naming the fix, never falling back to an unconfined start.
 */
export function createStdioSandbox(options: StdioSandboxOptions = {}): StdioSandbox {
  const bwrapPath = options.bwrapPath ?? DEFAULT_BWRAP_PATH;
  const hidden = (options.hiddenPaths ?? []).map((p) => resolve(p));
  let homesDirectory = options.homesDirectory ? resolve(options.homesDirectory) : undefined;
  let temporaryHomes: string | undefined;
  let systemArguments: string[] | undefined;
  let checked = false;

  function homes(): string {
    if (!homesDirectory) {
      temporaryHomes = mkdtempSync(join(tmpdir(), "trestle-forward-homes-"));
      homesDirectory = temporaryHomes;
    }
    return homesDirectory;
  }

  /** Why the sandbox cannot run here, or `undefined` once it ran. */
  function check(system: readonly string[]): string | undefined {
    if (checked) return undefined;
    if (!existsSync(bwrapPath)) {
      return `${bwrapPath} does not exist: install bubblewrap (Debian and Ubuntu: apt-get install bubblewrap)`;
    }
    const truePath = ["/usr/bin/true", "/bin/true"].find((p) => existsSync(p)) ?? "/usr/bin/true";
    const result = spawnSync(
      bwrapPath,
      [...SANDBOX_NAMESPACE_ARGUMENTS, ...system, "--proc", "/proc", "--dev", "/dev", "--", truePath],
      { env: {}, stdio: ["ignore", "ignore", "pipe"], encoding: "utf8", timeout: 15_000 },
    );
    if (result.error) {
      const code = (result.error as NodeJS.ErrnoException).code ?? "unknown error";
      return `${bwrapPath} could not be run (${code}): install bubblewrap (Debian and Ubuntu: apt-get install bubblewrap)`;
    }
    if (result.status !== 0) {
      const said = firstLine(result.stderr ?? "");
      return `bubblewrap could not set up its namespaces here${said ? ` (${said})` : ""}: allow the router's user to create user namespaces (sysctl kernel.unprivileged_userns_clone=1, or a container with user namespaces allowed)`;
    }
    checked = true;
    return undefined;
  }

  function prepareHome(key: string): { home: string; passwd: string; group: string } {
    const root = homes();
    mkdirSync(root, { recursive: true, mode: 0o700 });
    const own = join(root, homeName(key));
    const home = join(own, "home");
    mkdirSync(home, { recursive: true, mode: 0o700 });
    chmodSync(own, 0o700);
    chmodSync(home, 0o700);
    const user = sandboxUser();
    const passwd = join(own, "passwd");
    const group = join(own, "group");
    writeIfChanged(
      passwd,
      `${user.name}:x:${user.uid}:${user.gid}::${SANDBOX_HOME}:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n`,
    );
    writeIfChanged(group, `${user.name}:x:${user.gid}:\nnogroup:x:65534:\n`);
    return { home, passwd, group };
  }

  function launch(upstream: McpStdioUpstream, key: string): StdioLaunch {
    const label = describeUpstream(upstream);
    if (upstream.sandbox === false) {
      options.onUnconfinedStart?.({ key, upstream: label });
      return {
        command: upstream.command,
        args: [...(upstream.args ?? [])],
        env: { ...(upstream.env ?? {}) },
        ...(upstream.cwd ? { cwd: upstream.cwd } : {}),
        sandboxed: false,
      };
    }
    systemArguments ??= systemBindArguments();
    const unavailable = check(systemArguments);
    if (unavailable) {
      throw new TrestleError(
        `The MCP server ${label} cannot start in its sandbox: ${unavailable}; or set "sandbox": false on this forward to run it unconfined`,
        Code.FailedPrecondition,
      );
    }
    const notStarted = (why: string, code = Code.Unavailable) =>
      new TrestleError(`The MCP server ${label} could not be started: ${why}`, code);
    const hiddenAlso = [...hidden, homes()];
    const insideHidden = (path: string) => hiddenAlso.some((h) => isUnder(path, h));

    const cwd = upstream.cwd ? resolve(upstream.cwd) : undefined;
    if (cwd !== undefined) {
      if (!isDirectory(cwd)) throw notStarted("its working directory does not exist");
      if (insideHidden(cwd) || NEVER_SHOWN.some((p) => isUnder(cwd, p)) || cwd === "/") {
        throw notStarted("its working directory cannot be shown in its sandbox", Code.FailedPrecondition);
      }
    }
    const writable = (upstream.writablePaths ?? []).map((p) => resolve(p));
    for (const path of writable) {
      if (!existsSync(path)) throw notStarted(`its writable path ${path} does not exist`);
      if (insideHidden(path) || NEVER_SHOWN.some((p) => isUnder(path, p)) || path === "/") {
        throw notStarted(`its writable path ${path} cannot be shown in its sandbox`, Code.FailedPrecondition);
      }
    }
    const searchPath = upstream.env?.PATH ?? process.env.PATH ?? SANDBOX_SYSTEM_PATH;
    const program = locateProgram(upstream.command, {
      searchPath,
      cwd: cwd ?? process.cwd(),
      homes: [homedir()],
    });
    if (!program) {
      const named = upstream.command.includes("/") && existsSync(resolve(cwd ?? ".", upstream.command));
      throw notStarted(named ? "the program is not executable" : "the program was not found");
    }

    const shown = (path: string) =>
      path !== "/" &&
      !isSystemPath(path) &&
      !NEVER_SHOWN.some((p) => isUnder(path, p)) &&
      !insideHidden(path);
    const readOnly = [
      ...program.directories,
      ...(cwd ? [cwd] : []),
      ...(upstream.args ?? []).flatMap(pathsInArgument),
    ].filter(shown);
    const visible = [...readOnly, ...writable];
    const masks: SandboxMask[] = [];
    for (const path of hiddenAlso) {
      if (!existsSync(path) || !visible.some((v) => isUnder(path, v))) continue;
      masks.push({ path, kind: isDirectory(path) ? "directory" : "file" });
    }
    const { home, passwd, group } = prepareHome(key);
    const user = sandboxUser();
    const env: Record<string, string> = {
      HOME: SANDBOX_HOME,
      PATH: [...program.pathEntries, SANDBOX_SYSTEM_PATH].join(":"),
      LANG: process.env.LANG ?? "C.UTF-8",
      SHELL: "/bin/sh",
      TERM: "dumb",
      USER: user.name,
      LOGNAME: user.name,
      ...(upstream.env ?? {}),
    };
    const args = bwrapArguments(
      {
        readOnly,
        writable,
        masks,
        home,
        passwd,
        group,
        workingDirectory: cwd ?? SANDBOX_HOME,
        program: program.path,
        args: upstream.args ?? [],
      },
      systemArguments,
    );
    // bwrap itself starts from a directory that says nothing: the router's own is none of the server's business.
    return { command: bwrapPath, args, env, cwd: dirname(bwrapPath), sandboxed: true };
  }

  return {
    launch,
    dispose() {
      if (temporaryHomes) rmSync(temporaryHomes, { recursive: true, force: true });
      temporaryHomes = undefined;
      if (!options.homesDirectory) homesDirectory = undefined;
    },
  };
}
