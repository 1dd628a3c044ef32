import type { ServiceTarget } from "@trestle/core";
import {
  describeForwardUpstream,
  type ForwardReference,
  type ForwardUpstream,
  forwardProgramName,
} from "@trestle/core/catalog";

/** The label every entry imported from a forward carries, valued with the forward's name. */
export const FORWARD_LABEL = "trestle.forward";

/** The protocol name the MCP transport is registered under. */
export const MCP_PROTOCOL = "mcp";

/** The protocol name the A2A transport is registered under. */
export const A2A_PROTOCOL = "a2a";

/**
 * The service name a forward's imported entries are routed to (their `type`): `forward.<name>` in the default
 * namespace, `forward.<namespace>.<name>` in another. Forward names hold no '.', so two forwards never share one.
 */
export function forwardServiceName(namespace: string, name: string): string {
  return namespace ? `forward.${namespace}.${name}` : `forward.${name}`;
}

/**
 * The service target calls to a forward go to: no address, the transport (MCP, or A2A for an agent) finds the
 * upstream by name.
 */
export function forwardTarget(forward: ForwardReference): ServiceTarget {
  const namespace = forward.namespace ?? "";
  return {
    id: `forward:${namespace}/${forward.name}`,
    serviceName: forwardServiceName(namespace, forward.name),
    host: "",
    port: 0,
    serviceType: "multi-capability",
    protocol: forward.upstream.kind === "a2a" ? A2A_PROTOCOL : MCP_PROTOCOL,
  };
}

/** What the management API shows of an upstream: the program or origin, never arguments, env or header values. */
export type PublicUpstream =
  | {
      kind: "stdio";
      program: string;
      argumentCount: number;
      environment: string[];
      mode: "pooled" | "per-call";
      /** False for a server that runs unconfined (`sandbox: false`). */
      sandbox: boolean;
      /** Host paths the sandboxed server may write. */
      writablePaths: string[];
    }
  | { kind: "http"; server: string; headers: string[]; upstreamAuth?: "static" | "tokenExchange" }
  | { kind: "a2a"; server: string; headers: string[]; upstreamAuth?: "static" | "tokenExchange" };

/**
 * The upstream as it may be shown: secrets live in arguments, environment values, header values and the upstream
 * credential (only its kind is shown).
 */
export function publicUpstream(upstream: ForwardUpstream): PublicUpstream {
  if (upstream.kind === "stdio") {
    return {
      kind: "stdio",
      program: forwardProgramName(upstream.command),
      argumentCount: upstream.args?.length ?? 0,
      environment: Object.keys(upstream.env ?? {}).sort(),
      mode: upstream.mode ?? "pooled",
      sandbox: upstream.sandbox !== false,
      writablePaths: [...(upstream.writablePaths ?? [])],
    };
  }
  const auth = upstream.upstreamAuth;
  return {
    kind: upstream.kind,
    server: describeForwardUpstream(upstream).replace(/^at /, ""),
    headers: Object.keys(upstream.headers ?? {}).sort(),
    ...(auth ? { upstreamAuth: "static" in auth ? "static" : "tokenExchange" } : {}),
  };
}
