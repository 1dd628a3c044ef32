import { withCredentialHeaders } from "@trestle/core";
import {
  describeForwardUpstream,
  type ForwardHttpUpstream,
  type ForwardStdioUpstream,
  forwardProgramName,
} from "@trestle/core/catalog";

/**
 * An MCP server spawned on this machine and spoken to over its stdin and stdout: core's `ForwardStdioUpstream`,
 * the shape a router's forwards store.
 *
 * `args` and `env` are where credentials live (`--token=…`, `API_KEY=…`): no message, log line or event
 * this package produces quotes them. Only the program's name (the last path segment of `command`) is ever
 * shown. It runs in a sandbox of its own (see `createStdioSandbox`) with an environment of its own plus its `env`,
 * unless `sandbox` is `false`: then it gets `HOME`, `LOGNAME`, `PATH`, `SHELL`, `TERM`, `USER` from the router's
 * environment, plus its own `env`. `mode` `"pooled"` (default) keeps one process per upstream, shared by concurrent calls,
 * ended after an idle timeout and started again by the next call after it dies; `"per-call"` spawns a process
 * for each call.
 */
export type McpStdioUpstream = ForwardStdioUpstream;

/** An MCP server reached over Streamable HTTP (core's `ForwardHttpUpstream`). Only its URL's origin is ever shown. */
export type McpHttpUpstream = ForwardHttpUpstream;

/** How to reach one MCP server: spawn it (stdio) or call it (Streamable HTTP). */
export type McpUpstream = McpStdioUpstream | McpHttpUpstream;

/**
 * The name of an upstream that is safe to show: the program's name for stdio (never its arguments or
 * environment), the URL's origin for HTTP (never its path, query, credentials or headers). Core's
 * `describeForwardUpstream`, which the router's forwards use too.
 *
 * @example
 * ```ts
 * describeUpstream({ kind: "stdio", command: "/usr/bin/node", args: ["server.js", "--token=s3cret"] }); // "'node'"
 * describeUpstream({ kind: "http", url: "https://mcp.example/mcp?key=s3cret" }); // "at https://mcp.example"
 * ```
 */
export const describeUpstream: (upstream: McpUpstream) => string = describeForwardUpstream;

/**
 * The last path segment of a command: the one word of an argv that identifies a server without its secrets
 * (core's `forwardProgramName`).
 */
export const programName: (command: string) => string = forwardProgramName;

/**
 * Every value of an upstream that must never be shown: each argument (and the value part of `--name=value`),
 * each environment value, each header value (and the credential after `Bearer `/`Basic `), the URL's user,
 * password and query values. Used to scrub text that came from the server itself, which may echo them.
 */
export function upstreamSecretValues(upstream: McpUpstream): string[] {
  const values: string[] = [];
  if (upstream.kind === "stdio") {
    for (const arg of upstream.args ?? []) {
      values.push(arg);
      const equals = arg.indexOf("=");
      if (equals >= 0) values.push(arg.slice(equals + 1));
    }
    values.push(...Object.values(upstream.env ?? {}));
    return values;
  }
  for (const value of Object.values(upstream.headers ?? {})) {
    values.push(value);
    const space = value.indexOf(" ");
    if (space >= 0) values.push(value.slice(space + 1));
  }
  try {
    const parsed = new URL(upstream.url);
    values.push(decodeURIComponent(parsed.username), decodeURIComponent(parsed.password));
    for (const value of parsed.searchParams.values()) values.push(value);
    if (parsed.search) values.push(parsed.search.slice(1));
  } catch {
    values.push(upstream.url);
  }
  return values.filter((v) => v.length > 0);
}

/** A key that is equal for two descriptions exactly when they describe the same upstream. */
export function upstreamKey(upstream: McpUpstream): string {
  return stableJson(upstream);
}

/**
 * `upstreamKey`, remembered per description object: a directory hands out the same object for as long as a
 * forward is unchanged, and the key is asked for on every call.
 */
export function upstreamKeyCache(): (upstream: McpUpstream) => string {
  const keys = new WeakMap<McpUpstream, string>();
  return (upstream) => {
    let key = keys.get(upstream);
    if (key === undefined) {
      key = upstreamKey(upstream);
      keys.set(upstream, key);
    }
    return key;
  };
}

function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/**
 * `upstream` with a call's credential among its headers (over a configured header of the same name), or `upstream`
 * itself for a call without one or a stdio upstream (which has no headers).
 */
export function withCallCredential(
  upstream: McpUpstream,
  credential: Readonly<Record<string, string>> | undefined,
): McpUpstream {
  if (credential === undefined || upstream.kind !== "http") return upstream;
  return { ...upstream, headers: withCredentialHeaders(upstream.headers, credential) };
}
