import { lstatSync, readlinkSync } from "node:fs";
import { SYSTEM_DIRECTORIES } from "./program-location.js";

/**
 * The pieces of /etc a server may need: the dynamic loader's configuration, TLS roots, time zone, the
 * alternatives links, name resolution (the network is shared, so the host's resolver and hosts file apply),
 * service and protocol names, npm's system configuration. No passwd, shadow or machine id: nothing that
 * describes the host's users (a sandbox gets a passwd of its own).
 */
export const SANDBOX_ETC_PIECES: readonly string[] = [
  "/etc/ld.so.cache",
  "/etc/ld.so.conf",
  "/etc/ld.so.conf.d",
  "/etc/alternatives",
  "/etc/ssl",
  "/etc/ca-certificates",
  "/etc/pki",
  "/etc/localtime",
  "/etc/resolv.conf",
  "/etc/hosts",
  "/etc/nsswitch.conf",
  "/etc/host.conf",
  "/etc/gai.conf",
  "/etc/services",
  "/etc/protocols",
  "/etc/os-release",
  "/etc/npmrc",
];

/** Where a sandboxed server's home is, inside its sandbox. */
export const SANDBOX_HOME = "/home/forward";

/** A path hidden from a sandboxed server although a path it sees holds it (the router's own files). */
export interface SandboxMask {
  path: string;
  kind: "directory" | "file";
}

/** What one sandboxed server sees and runs: every path absolute and normalised. */
export interface SandboxLayout {
  /** Host paths shown read-only at the same path (an installation, the working directory, paths in arguments). */
  readOnly: readonly string[];
  /** Host paths shown writable at the same path. */
  writable: readonly string[];
  /** Hidden again after the paths above: a directory by an empty tmpfs, a file by /dev/null. */
  masks: readonly SandboxMask[];
  /** The server's private home on the host, shown writable at {@link SANDBOX_HOME}. */
  home: string;
  /** Host files shown as /etc/passwd and /etc/group (the sandbox's own user). */
  passwd: string;
  group: string;
  /** The working directory inside. */
  workingDirectory: string;
  /** The program (absolute) and its arguments. */
  program: string;
  args: readonly string[];
}

/**
 * The bwrap arguments that show the system directories read-only, as the host has them: a directory is bound, a
 * symbolic link (`/bin` → `usr/bin` on a merged-/usr system) made again; then the pieces of /etc that exist.
 * Reads the file system; the same on every call.
 */
export function systemBindArguments(): string[] {
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
  for (const path of SANDBOX_ETC_PIECES) args.push("--ro-bind-try", path, path);
  return args;
}

/** The namespaces and process settings of every sandbox, before any file system argument. */
export const SANDBOX_NAMESPACE_ARGUMENTS: readonly string[] = [
  // New user, PID, IPC, UTS and cgroup namespaces; the host's network (servers call APIs, npx downloads).
  "--unshare-all",
  "--share-net",
  // Ends with the router; off the router's terminal; no capabilities, even where the router runs as root.
  "--die-with-parent",
  "--new-session",
  "--cap-drop",
  "ALL",
];

function depth(path: string): number {
  return path === "/" ? 0 : path.split("/").length;
}

/**
 * The whole bwrap command line (after the bwrap program) for `layout`: new namespaces but the network's, a
 * read-only tmpfs root holding the system directories and /etc pieces, the sandbox's passwd and group, a /proc of
 * its own PID namespace (no other process is in it), a minimal /dev with a private /dev/shm, a private /tmp, the
 * layout's paths (parents before the paths inside them, so that a writable directory inside a read-only one stays
 * writable), the masks (read-only), the home, then the program. The environment is not here: bwrap passes its own on, and
 * the command line of a process is readable by every user of the machine, its environment only by its own.
 */
export function bwrapArguments(layout: SandboxLayout, systemArguments: readonly string[]): string[] {
  const args = [...SANDBOX_NAMESPACE_ARGUMENTS, ...systemArguments];
  args.push("--ro-bind", layout.passwd, "/etc/passwd", "--ro-bind", layout.group, "/etc/group");
  args.push("--proc", "/proc", "--dev", "/dev", "--tmpfs", "/dev/shm", "--tmpfs", "/tmp");
  const writable = new Set(layout.writable);
  const binds = [...new Set([...layout.readOnly, ...layout.writable])].sort(
    (a, b) => depth(a) - depth(b) || (a < b ? -1 : a > b ? 1 : 0),
  );
  for (const path of binds) args.push(writable.has(path) ? "--bind" : "--ro-bind", path, path);
  for (const mask of layout.masks) {
    if (mask.kind === "directory") args.push("--tmpfs", mask.path, "--remount-ro", mask.path);
    else args.push("--ro-bind", "/dev/null", mask.path);
  }
  args.push("--bind", layout.home, SANDBOX_HOME);
  args.push("--remount-ro", "/", "--chdir", layout.workingDirectory);
  args.push("--", layout.program, ...layout.args);
  return args;
}
