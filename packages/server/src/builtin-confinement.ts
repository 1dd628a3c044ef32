import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";

/** util-linux's `unshare`, an essential package on Debian and its kin. */
export const DEFAULT_UNSHARE_PATH = "/usr/bin/unshare";

/** How a built-in service's process is started. */
export interface BuiltinLauncher {
  /** True when built-ins start in a PID namespace of their own. */
  readonly confined: boolean;
  /** Why they do not, when they do not. */
  readonly reason?: string;
  /** The program and arguments that run `file args` (inside the namespace when `confined`). */
  command(file: string, args: readonly string[]): { file: string; args: string[] };
}

/**
 * The `unshare` arguments that start a program in new PID and mount namespaces with a /proc of its own, killed when
 * `unshare` ends. A router that is not root also needs a user namespace, which maps its user to itself (so that
 * the program keeps the router's uid, and a code execution engine inside can start its own sandboxes).
 */
export function unshareArguments(asRoot: boolean): string[] {
  return [...(asRoot ? [] : ["--map-current-user"]), "--pid", "--fork", "--mount-proc", "--kill-child"];
}

/**
 * Decides how the built-in services start: in a PID namespace of their own, with a /proc of their own, where the
 * router's process and every other process of the machine are not visible (nor their environments, which hold the
 * router's tokens in `/proc/<pid>/environ` however the router clears its own environment). Their network, files
 * and user stay the router's: they are the router's own code, and the code execution engine sandboxes the programs
 * it runs further. `unshare` (util-linux) is used rather than bubblewrap because the engine runs bubblewrap inside,
 * and bubblewrap's own /proc (with its read-only overmounts) cannot be mounted again in a nested sandbox.
 *
 * Checked once, by starting `true` that way: where it fails (no `unshare`, user namespaces not allowed), the
 * launcher starts the built-ins as they are and says why.
 */
export function createBuiltinLauncher(
  options: { unsharePath?: string; asRoot?: boolean } = {},
): BuiltinLauncher {
  const unsharePath = options.unsharePath ?? DEFAULT_UNSHARE_PATH;
  const asRoot = options.asRoot ?? process.getuid?.() === 0;
  const prefix = unshareArguments(asRoot);
  const reason = probe(unsharePath, prefix);
  if (reason !== undefined) {
    return { confined: false, reason, command: (file, args) => ({ file, args: [...args] }) };
  }
  return {
    confined: true,
    command: (file, args) => ({ file: unsharePath, args: [...prefix, "--", file, ...args] }),
  };
}

function probe(unsharePath: string, prefix: readonly string[]): string | undefined {
  if (!existsSync(unsharePath)) return `${unsharePath} does not exist (Debian package util-linux)`;
  const truePath = ["/usr/bin/true", "/bin/true"].find((p) => existsSync(p)) ?? "/usr/bin/true";
  const result = spawnSync(unsharePath, [...prefix, "--", truePath], {
    env: {},
    stdio: ["ignore", "ignore", "pipe"],
    encoding: "utf8",
    timeout: 10_000,
  });
  if (result.error)
    return `${unsharePath} could not be run (${(result.error as NodeJS.ErrnoException).code})`;
  if (result.status === 0) return undefined;
  const said = (result.stderr ?? "").trim().split("\n")[0]?.slice(0, 300);
  return `${unsharePath} could not create the namespaces${said ? ` (${said})` : ""}`;
}
