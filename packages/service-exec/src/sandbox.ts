import { spawnSync } from "node:child_process";
import { chownSync, existsSync, lstatSync, mkdtempSync, readlinkSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { isAbsolute, join } from "node:path";
import type { RunCommand } from "./language-runtimes.js";

/** Where Debian's `bubblewrap` package installs `bwrap`. */
export const DEFAULT_BWRAP_PATH = "/usr/bin/bwrap";
/** The uid and gid a program has inside the sandbox, and the host user bwrap runs as when the engine is root. */
export const SANDBOX_USER_ID = 65534;
/** Processes and threads one run may have at once (RLIMIT_NPROC inside its own user namespace). */
export const DEFAULT_MAX_PROCESSES = 256;
/** The memory limit of a run when none is given, in MiB: it sizes the sandbox's writable tmpfs mounts. */
export const DEFAULT_MEMORY_LIMIT_MB = 512;
/**
 * Descriptors bwrap reports the sandbox's pid on (`--info-fd`) and waits on before it starts the program
 * (`--block-fd`), when a run is held until the engine has placed it in its cgroup.
 */
export const SANDBOX_INFO_FD = 3;
export const SANDBOX_BLOCK_FD = 4;
/** The PATH a sandboxed program gets unless the engine is given another. */
export const SANDBOX_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/** Bash (essential in Debian): the only shell at hand that can close a descriptor numbered above 9. */
const BASH = "/bin/bash";
/**
 * Closes every descriptor above stderr, then runs the rest. bwrap passes on whatever the engine inherited
 * without close-on-exec (from whoever started it); a program must start with stdin, stdout and stderr only.
 */
const CLOSE_INHERITED_FDS =
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell parameter expansion, not a JavaScript template
  'for fd in /proc/self/fd/*; do fd=${fd##*/}; if [ "$fd" -gt 2 ]; then eval "exec $fd>&-"; fi; done; exec "$@"';
/**
 * Where a run with a tool channel has it: bwrap inherits the channel at {@link SANDBOX_CHANNEL_FD}, and the program
 * finds it at {@link PROGRAM_CHANNEL_FD} (the preludes' default), every other descriptor above stderr closed.
 */
export const SANDBOX_CHANNEL_FD = 5;
/** See {@link SANDBOX_CHANNEL_FD}. */
export const PROGRAM_CHANNEL_FD = 3;
/** {@link CLOSE_INHERITED_FDS}, keeping the tool channel and moving it to {@link PROGRAM_CHANNEL_FD}. */
const CLOSE_INHERITED_FDS_KEEP_CHANNEL =
  // The escaped \${fd##*/} is a shell parameter expansion.
  `for fd in /proc/self/fd/*; do fd=\${fd##*/}; if [ "$fd" -gt 2 ] && [ "$fd" != ${SANDBOX_CHANNEL_FD} ]; then eval "exec $fd>&-"; fi; done; exec ${PROGRAM_CHANNEL_FD}<&${SANDBOX_CHANNEL_FD} ${SANDBOX_CHANNEL_FD}<&-; exec "$@"`;
/** coreutils' env, to drop the variables bwrap and bash add (PWD, SHLVL, _). */
const ENV = "/usr/bin/env";
/** util-linux, an essential Debian package: it sets the process limit inside the sandbox, where it counts. */
const PRLIMIT = "/usr/bin/prlimit";
/** Top-level system directories; on a merged-/usr system most are symlinks into /usr, recreated as such. */
const SYSTEM_DIRECTORIES = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"];
/**
 * The pieces of /etc an interpreter needs: the dynamic loader's cache and configuration, TLS roots,
 * time zone, and the alternatives links some interpreters are installed through. No passwd, no hosts, no
 * machine id: nothing that describes the host.
 */
const ETC_PIECES = [
  "/etc/ld.so.cache",
  "/etc/ld.so.conf",
  "/etc/ld.so.conf.d",
  "/etc/alternatives",
  "/etc/ssl",
  "/etc/ca-certificates",
  "/etc/localtime",
];

/** Options for {@link createSandbox}. */
export interface SandboxOptions {
  /** The bubblewrap binary. Default {@link DEFAULT_BWRAP_PATH}. */
  bwrapPath?: string;
  /** RLIMIT_NPROC inside the sandbox. Default {@link DEFAULT_MAX_PROCESSES}. */
  maxProcesses?: number;
  /** Where the self-test makes its work directory, as runs will. Default: the system's temporary directory. */
  workRoot?: string;
  /**
   * A run's memory limit in MiB, which sizes its writable tmpfs mounts (see {@link sandboxTmpfsSizes}).
   * Default {@link DEFAULT_MEMORY_LIMIT_MB}.
   */
  memoryLimitMb?: number;
}

/** The sizes of a sandbox's writable tmpfs mounts, in bytes: together at most three quarters of its limit. */
export interface SandboxTmpfsSizes {
  /** The work directory (also HOME and TMPDIR): half the memory limit. */
  workDirBytes: number;
  /** /dev/shm (POSIX shared memory and semaphores): a quarter of the memory limit. */
  shmBytes: number;
}

/**
 * The tmpfs sizes for a run limited to `memoryLimitMb`. Their sum stays within the limit, so even where no
 * cgroup counts a run's memory, what its files can hold is bounded by it.
 */
export function sandboxTmpfsSizes(memoryLimitMb: number): SandboxTmpfsSizes {
  const bytes = memoryLimitMb * 1024 * 1024;
  return { workDirBytes: Math.floor(bytes / 2), shmBytes: Math.floor(bytes / 4) };
}

/** What one run needs from the sandbox. */
export interface SandboxRun {
  /**
   * The run's work directory and the program's cwd: inside the sandbox, a fresh tmpfs of its own at this path
   * (the host directory itself is not writable to the program).
   */
  workDir: string;
  /** Files of the host work directory (the program's code) bound read-only at the same path in the sandbox. */
  codeFiles: readonly string[];
  /** The program's whole environment. */
  env: Readonly<Record<string, string>>;
  /** Directories outside the system ones the interpreter needs, bound read-only (e.g. a Python prefix). */
  readOnlyPaths: readonly string[];
  /** RLIMIT_AS of the program (and whatever it starts), in bytes; none when not given. */
  addressSpaceBytes?: number;
  /**
   * Hold the sandbox before the program starts: bwrap reports its sandbox's pid on {@link SANDBOX_INFO_FD} and
   * waits for a byte on {@link SANDBOX_BLOCK_FD} (so the engine can move it into the run's cgroup first).
   */
  held?: boolean;
  /**
   * The run has a tool channel: bwrap inherits it at {@link SANDBOX_CHANNEL_FD} and the program gets it at
   * {@link PROGRAM_CHANNEL_FD}. A Unix socket: it reaches only the engine, never a network.
   */
  channel?: boolean;
}

/** A started sandbox's command and the host identity to start it as. */
export interface SandboxedCommand {
  command: RunCommand;
  /** Host uid/gid for bwrap itself: set when the engine runs as root, so the process limit applies. */
  uid?: number;
  gid?: number;
  /** Set for a held run: where bwrap reports and waits. */
  held?: { infoFd: number; blockFd: number };
}

/** What {@link Sandbox.probe} runs its command with, besides the system. */
export interface SandboxProbeOptions {
  readOnlyPaths?: readonly string[];
  addressSpaceBytes?: number;
}

/** Runs programs inside a bubblewrap sandbox. */
export interface Sandbox {
  readonly bwrapPath: string;
  readonly maxProcesses: number;
  /**
   * Prepares a work directory for the sandbox user: owned by it when the engine runs as root (bwrap then runs
   * as that user, which would otherwise not be allowed to write there).
   */
  prepareWorkDir(workDir: string, files: readonly string[]): void;
  /** The bwrap command that runs `command` confined to `run`. */
  wrap(command: RunCommand, run: SandboxRun): SandboxedCommand;
  /**
   * Runs `command` once in the sandbox, synchronously; `undefined` when it exited 0, else why it did not.
   * Used at start to refuse an engine whose isolation does not work.
   */
  probe(command: RunCommand, options?: SandboxProbeOptions): string | undefined;
}

function engineIsRoot(): boolean {
  return typeof process.getuid === "function" && process.getuid() === 0;
}

function systemBinds(): string[] {
  const args: string[] = [];
  for (const path of SYSTEM_DIRECTORIES) {
    let stat: ReturnType<typeof lstatSync>;
    try {
      stat = lstatSync(path);
    } catch {
      continue;
    }
    if (stat.isSymbolicLink()) args.push("--symlink", readlinkSync(path), path);
    else if (stat.isDirectory()) args.push("--ro-bind", path, path);
  }
  for (const path of ETC_PIECES) args.push("--ro-bind-try", path, path);
  return args;
}

function isUnder(path: string, directory: string): boolean {
  return path === directory || path.startsWith(`${directory}/`);
}

/**
 * Creates a bubblewrap sandbox. Each run gets new user, PID, network, IPC, UTS and cgroup namespaces
 * (`--unshare-all`): uid and gid 65534 and no capabilities inside; its own /proc, so no other process's
 * environ, cmdline or fds; only its own loopback, so no network at all; a tmpfs root, read-only, holding
 * read-only binds of /usr, the /lib and /bin links, a few /etc files and the interpreter's own directory,
 * a read-only minimal /dev. Its only writable places are two tmpfs mounts of its own, sized so that together
 * they stay within the run's memory limit: the work directory (the program's code bound read-only into it) and
 * /dev/shm. `--clearenv` plus the given variables is its whole environment; `--new-session` keeps it off the
 * engine's terminal; `--die-with-parent` kills it when the engine dies. RLIMIT_NPROC (and RLIMIT_AS when
 * given) is set inside, where RLIMIT_NPROC counts this sandbox's processes only.
 *
 * When the engine runs as root, bwrap itself runs as host uid/gid 65534: a root-owned user namespace is
 * exempt from RLIMIT_NPROC, and a program that escaped would be nobody rather than root.
 */
export function createSandbox(options: SandboxOptions = {}): Sandbox {
  const bwrapPath = options.bwrapPath ?? DEFAULT_BWRAP_PATH;
  const maxProcesses = options.maxProcesses ?? DEFAULT_MAX_PROCESSES;
  const tmpfs = sandboxTmpfsSizes(options.memoryLimitMb ?? DEFAULT_MEMORY_LIMIT_MB);
  const asRoot = engineIsRoot();
  const identity = asRoot ? { uid: SANDBOX_USER_ID, gid: SANDBOX_USER_ID } : {};
  const systemArgs = systemBinds();

  function wrap(command: RunCommand, run: SandboxRun): SandboxedCommand {
    const args = [
      "--unshare-all",
      "--die-with-parent",
      "--new-session",
      "--uid",
      String(SANDBOX_USER_ID),
      "--gid",
      String(SANDBOX_USER_ID),
      "--cap-drop",
      "ALL",
      "--hostname",
      "sandbox",
      "--clearenv",
      ...systemArgs,
    ];
    for (const path of run.readOnlyPaths) {
      if (!isAbsolute(path) || SYSTEM_DIRECTORIES.some((system) => isUnder(path, system))) continue;
      args.push("--ro-bind", path, path);
    }
    args.push(
      "--proc",
      "/proc",
      "--dev",
      "/dev",
      // bwrap's /dev is a tmpfs as large as the host allows: a sized tmpfs of its own for /dev/shm, the rest
      // read-only (the device nodes stay usable: they are binds of their own).
      "--size",
      String(tmpfs.shmBytes),
      "--tmpfs",
      "/dev/shm",
      "--remount-ro",
      "/dev",
      "--size",
      String(tmpfs.workDirBytes),
      "--perms",
      "0700",
      "--tmpfs",
      run.workDir,
    );
    for (const file of run.codeFiles) args.push("--ro-bind", file, file);
    args.push("--remount-ro", "/", "--chdir", run.workDir);
    for (const [name, value] of Object.entries(run.env)) args.push("--setenv", name, value);
    if (run.held) {
      args.push("--info-fd", String(SANDBOX_INFO_FD), "--block-fd", String(SANDBOX_BLOCK_FD));
    }
    const limits = [`--nproc=${maxProcesses}:${maxProcesses}`];
    if (run.addressSpaceBytes !== undefined) {
      limits.push(`--as=${run.addressSpaceBytes}:${run.addressSpaceBytes}`);
    }
    args.push(
      "--",
      BASH,
      "--noprofile",
      "--norc",
      "-c",
      run.channel ? CLOSE_INHERITED_FDS_KEEP_CHANNEL : CLOSE_INHERITED_FDS,
      "trestle-sandbox",
      // bwrap sets PWD and bash SHLVL and _: the program's environment is exactly the one given.
      ENV,
      "-u",
      "PWD",
      "-u",
      "SHLVL",
      "-u",
      "_",
      PRLIMIT,
      ...limits,
      "--",
      command.file,
      ...command.args,
    );
    return {
      command: { file: bwrapPath, args },
      ...identity,
      ...(run.held ? { held: { infoFd: SANDBOX_INFO_FD, blockFd: SANDBOX_BLOCK_FD } } : {}),
    };
  }

  function prepareWorkDir(workDir: string, files: readonly string[]): void {
    if (!asRoot) return;
    for (const path of [workDir, ...files]) chownSync(path, SANDBOX_USER_ID, SANDBOX_USER_ID);
  }

  function probe(command: RunCommand, probeOptions: SandboxProbeOptions = {}): string | undefined {
    if (!existsSync(bwrapPath)) return `${bwrapPath} does not exist (Debian package "bubblewrap")`;
    const workDir = realpathSync(mkdtempSync(join(options.workRoot ?? tmpdir(), "trestle-exec-probe-")));
    try {
      prepareWorkDir(workDir, []);
      const sandboxed = wrap(command, {
        workDir,
        codeFiles: [],
        env: { PATH: SANDBOX_PATH },
        readOnlyPaths: probeOptions.readOnlyPaths ?? [],
        ...(probeOptions.addressSpaceBytes === undefined
          ? {}
          : { addressSpaceBytes: probeOptions.addressSpaceBytes }),
      });
      const result = spawnSync(sandboxed.command.file, sandboxed.command.args, {
        env: {},
        stdio: ["ignore", "ignore", "pipe"],
        encoding: "utf8",
        timeout: 15_000,
        ...(sandboxed.uid === undefined ? {} : { uid: sandboxed.uid, gid: sandboxed.gid }),
      });
      if (result.error)
        return `${bwrapPath} could not be run (${(result.error as NodeJS.ErrnoException).code})`;
      if (result.status === 0) return undefined;
      const stderr = result.stderr.trim().split("\n").slice(-3).join(" / ");
      return `${command.file} exited with ${result.status ?? result.signal} in the sandbox${stderr ? `: ${stderr}` : ""}`;
    } finally {
      rmSync(workDir, { recursive: true, force: true });
    }
  }

  return { bwrapPath, maxProcesses, prepareWorkDir, wrap, probe };
}
