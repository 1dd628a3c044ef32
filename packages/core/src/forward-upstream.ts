import type { ForwardUpstream } from "./catalog.js";

/**
 * The name of a forward's upstream that is safe to show: the program's name for stdio (never its arguments or
 * environment), the URL's origin for HTTP (never its path, query, credentials or headers). Core's, so that the
 * router's forwards and the MCP transport name an upstream the same way without one depending on the other.
 *
 * @example
 * ```ts
 * describeForwardUpstream({ kind: "stdio", command: "/usr/bin/node", args: ["server.js", "--token=s3cret"] }); // "'node'"
 * describeForwardUpstream({ kind: "http", url: "https://mcp.example/mcp?key=s3cret" }); // "at https://mcp.example"
 * ```
 */
export function describeForwardUpstream(upstream: ForwardUpstream): string {
  if (upstream.kind === "stdio") return `'${forwardProgramName(upstream.command)}'`;
  return `at ${safeOrigin(upstream.url)}`;
}

/**
 * The last path segment of a command (as POSIX `basename`): the one word of an argv that identifies a server
 * without its secrets.
 */
export function forwardProgramName(command: string): string {
  const path = command.trim().replace(/\/+$/, "");
  return path.slice(path.lastIndexOf("/") + 1) || "(no program)";
}

function safeOrigin(url: string): string {
  try {
    const parsed = new URL(url);
    return parsed.origin === "null" ? `${parsed.protocol}//…` : parsed.origin;
  } catch {
    return "(an invalid URL)";
  }
}
