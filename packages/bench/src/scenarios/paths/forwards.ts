import { readFileSync } from "node:fs";
import { distScript, repoRoot } from "../../paths.js";
import { processTree } from "../../proc-stats.js";
import { manage } from "../../router-process.js";

/** The stdio echo server the peers front, as a forward of the router (run in the router's default sandbox). */
export function stdioEchoForward(name: string) {
  return {
    name,
    upstream: {
      kind: "stdio",
      command: process.execPath,
      args: [distScript("servers/stdio-echo-server.js")],
      // The server imports the MCP SDK from the workspace: its sandbox shows it the working directory.
      cwd: repoRoot,
    },
  };
}

/** A Streamable HTTP MCP server as a forward of the router. */
export function httpForward(name: string, url: string) {
  return { name, upstream: { kind: "http", url } };
}

/** Adds a forward; resolves when the router has connected to it and imported its catalog (201). */
export async function addForward(
  routerUrl: string,
  forward: { name: string } & Record<string, unknown>,
): Promise<void> {
  await manage(routerUrl, "POST", "/api/v1/forwards", forward);
}

/** Removes a forward and what it imported. */
export async function removeForward(routerUrl: string, name: string): Promise<void> {
  await manage(routerUrl, "DELETE", `/api/v1/forwards/${encodeURIComponent(name)}`);
}

/** The command names (`comm`) of a process's descendants: whether a forward runs under `bwrap`. */
export function descendantCommands(pid: number): string[] {
  return processTree(pid)
    .filter((p) => p !== pid)
    .map((p) => {
      try {
        return readFileSync(`/proc/${p}/comm`, "utf8").trim();
      } catch {
        return "";
      }
    })
    .filter(Boolean);
}
