import { JsonRpcErrorCode } from "./json-rpc.js";
import { LOG_LEVELS, type LogLevel } from "./session-registry.js";

/**
 * The MCP revisions the router speaks, oldest first. The legacy revisions negotiate a session with `initialize`;
 * from {@link FIRST_MODERN_REVISION} on, every request carries its revision in `_meta` and no session exists.
 */
export const MCP_REVISIONS = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"] as const;
/** One MCP revision the router speaks. */
export type McpRevision = (typeof MCP_REVISIONS)[number];
/** The first revision of the stateless era. */
export const FIRST_MODERN_REVISION: McpRevision = "2026-07-28";

/** True for a revision of the stateless era (2026-07-28 and later). */
export function isModernRevision(revision: string): boolean {
  return revision >= FIRST_MODERN_REVISION;
}

/** True when `revision` is `minimum` or newer (revisions are dates: they order as strings). */
export function revisionAtLeast(revision: string, minimum: McpRevision): boolean {
  return revision >= minimum;
}

/** `_meta` keys of the stateless era. */
export const META = {
  protocolVersion: "io.modelcontextprotocol/protocolVersion",
  clientCapabilities: "io.modelcontextprotocol/clientCapabilities",
  clientInfo: "io.modelcontextprotocol/clientInfo",
  logLevel: "io.modelcontextprotocol/logLevel",
  serverInfo: "io.modelcontextprotocol/serverInfo",
  subscriptionId: "io.modelcontextprotocol/subscriptionId",
} as const;

/** MCP error codes of the stateless era. */
export const ModernErrorCode = {
  HeaderMismatch: -32020,
  MissingRequiredClientCapability: -32021,
  UnsupportedProtocolVersion: -32022,
} as const;

/** The capabilities a client declares (on `initialize`, or in each request's `_meta`). */
export interface ClientCapabilities {
  sampling?: Record<string, unknown>;
  elicitation?: Record<string, unknown>;
  roots?: Record<string, unknown>;
  extensions?: Record<string, unknown>;
  [key: string]: unknown;
}

/** What a stateless request says about its client: read from its `_meta`, valid for this request only. */
export interface ModernClient {
  readonly revision: string;
  readonly capabilities: ClientCapabilities;
  readonly info?: { name: string; version: string };
  /** The level of log messages the client wants; none are sent when absent. */
  readonly logLevel?: LogLevel;
}

/** Why a stateless request is refused before it is dispatched: the HTTP status and the JSON-RPC error. */
export interface EraRefusal {
  status: number;
  code: number;
  message: string;
  data?: unknown;
}

/** Methods of the legacy revisions the stateless era removed: answered 404 with -32601. */
export const REMOVED_IN_MODERN = new Set([
  "initialize",
  "ping",
  "logging/setLevel",
  "resources/subscribe",
  "resources/unsubscribe",
]);

/** Methods that exist only in the stateless era: a legacy session gets -32601 for them. */
export const MODERN_ONLY = new Set([
  "server/discover",
  "subscriptions/listen",
  "tasks/get",
  "tasks/update",
  "tasks/cancel",
]);

/** The protocol version a request's `_meta` names, if it names one (the sign of a stateless request). */
export function metaProtocolVersion(params: unknown): string | undefined {
  const meta = (params as { _meta?: Record<string, unknown> } | undefined)?._meta;
  const version = meta?.[META.protocolVersion];
  return typeof version === "string" ? version : undefined;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * Reads the client's declarations from a stateless request's `_meta`, or refuses the request: -32602 when a
 * required field is missing or malformed, -32022 (with the supported list) when its revision is not accepted.
 */
export function readModernClient(params: unknown, accepted: readonly string[]): ModernClient | EraRefusal {
  const meta = (params as { _meta?: unknown } | undefined)?._meta;
  if (!isObject(meta)) {
    return {
      status: 400,
      code: JsonRpcErrorCode.InvalidParams,
      message: `Invalid params: _meta is required and must name ${META.protocolVersion} and ${META.clientCapabilities}`,
    };
  }
  const revision = meta[META.protocolVersion];
  if (typeof revision !== "string" || revision.length === 0) {
    return {
      status: 400,
      code: JsonRpcErrorCode.InvalidParams,
      message: `Invalid params: _meta.${META.protocolVersion} must be a protocol version string`,
    };
  }
  if (!accepted.includes(revision) || !isModernRevision(revision)) {
    return unsupportedVersion(revision, accepted);
  }
  const capabilities = meta[META.clientCapabilities];
  if (!isObject(capabilities)) {
    return {
      status: 400,
      code: JsonRpcErrorCode.InvalidParams,
      message: `Invalid params: _meta.${META.clientCapabilities} must be an object (empty when the client declares none)`,
    };
  }
  const info = meta[META.clientInfo];
  if (
    info !== undefined &&
    !(isObject(info) && typeof info.name === "string" && typeof info.version === "string")
  ) {
    return {
      status: 400,
      code: JsonRpcErrorCode.InvalidParams,
      message: `Invalid params: _meta.${META.clientInfo} must have a string name and version`,
    };
  }
  const level = meta[META.logLevel];
  if (level !== undefined && !LOG_LEVELS.includes(level as LogLevel)) {
    return {
      status: 400,
      code: JsonRpcErrorCode.InvalidParams,
      message: `Invalid params: _meta.${META.logLevel} must be one of ${LOG_LEVELS.join(", ")}`,
    };
  }
  return {
    revision,
    capabilities: capabilities as ClientCapabilities,
    ...(info !== undefined ? { info: info as { name: string; version: string } } : {}),
    ...(level !== undefined ? { logLevel: level as LogLevel } : {}),
  };
}

/** The refusal of a revision the router does not accept, with the list it does (-32022). */
export function unsupportedVersion(requested: string, accepted: readonly string[]): EraRefusal {
  return {
    status: 400,
    code: ModernErrorCode.UnsupportedProtocolVersion,
    message: `Unsupported protocol version: ${requested} (supported: ${accepted.join(", ")})`,
    data: { supported: [...accepted].reverse(), requested },
  };
}

/**
 * The revision a legacy client gets from `initialize`: the one it asked for when accepted, else the newest
 * accepted legacy revision (a future or unknown revision is walked back, as the lifecycle says).
 */
export function negotiateLegacyRevision(requested: unknown, accepted: readonly string[]): string {
  const legacy = accepted.filter((r) => !isModernRevision(r));
  if (typeof requested === "string" && legacy.includes(requested)) return requested;
  return legacy[legacy.length - 1] ?? MCP_REVISIONS[3];
}

/**
 * Checks the revisions an operator accepts: known ones only, at least one. Returns them oldest first.
 *
 * @throws Error naming what is wrong.
 */
export function parseAcceptedRevisions(revisions: readonly string[]): McpRevision[] {
  const unknown = revisions.filter((r) => !(MCP_REVISIONS as readonly string[]).includes(r));
  if (unknown.length > 0) {
    throw new Error(
      `unknown MCP revision(s) ${unknown.join(", ")}; the router speaks ${MCP_REVISIONS.join(", ")}`,
    );
  }
  if (revisions.length === 0) throw new Error("at least one MCP revision must be accepted");
  return MCP_REVISIONS.filter((r) => revisions.includes(r));
}

/** Decodes an `Mcp-Name`/`Mcp-Param-*` header value: plain, or the `=?base64?…?=` sentinel form. */
export function decodeHeaderValue(value: string): string | undefined {
  if (value.startsWith("=?base64?") && value.endsWith("?=")) {
    const encoded = value.slice(9, -2);
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(encoded)) return undefined;
    return Buffer.from(encoded, "base64").toString("utf8");
  }
  return value;
}

/** The body field `Mcp-Name` mirrors for `method`, if the method has one. */
export function mcpNameSource(method: string, params: unknown): unknown {
  const p = (params ?? {}) as Record<string, unknown>;
  if (method === "tools/call" || method === "prompts/get") return p.name;
  if (method === "resources/read") return p.uri;
  if (method === "tasks/get" || method === "tasks/update" || method === "tasks/cancel") return p.taskId;
  return undefined;
}

/**
 * Cross-checks a stateless request's mirrored headers against its body (-32020 on a missing or different
 * `MCP-Protocol-Version`, `Mcp-Method` or `Mcp-Name`); `undefined` when they agree.
 */
export function checkMirroredHeaders(
  headers: Readonly<Record<string, string | string[] | undefined>>,
  method: string,
  params: unknown,
  revision: string,
): EraRefusal | undefined {
  const mismatch = (message: string): EraRefusal => ({
    status: 400,
    code: ModernErrorCode.HeaderMismatch,
    message: `Header mismatch: ${message}`,
  });
  const version = headers["mcp-protocol-version"];
  if (typeof version !== "string") return mismatch("the MCP-Protocol-Version header is required");
  if (version !== revision) {
    return mismatch(
      `MCP-Protocol-Version header value '${version}' does not match _meta protocol version '${revision}'`,
    );
  }
  const methodHeader = headers["mcp-method"];
  if (typeof methodHeader !== "string") return mismatch("the Mcp-Method header is required");
  if (methodHeader !== method) {
    return mismatch(`Mcp-Method header value '${methodHeader}' does not match body method '${method}'`);
  }
  const source = mcpNameSource(method, params);
  if (source !== undefined) {
    const nameHeader = headers["mcp-name"];
    if (typeof nameHeader !== "string") return mismatch(`the Mcp-Name header is required for ${method}`);
    const decoded = decodeHeaderValue(nameHeader);
    if (decoded === undefined)
      return mismatch("the Mcp-Name header is not valid Base64 in its sentinel form");
    if (decoded !== source) {
      return mismatch(`Mcp-Name header value '${decoded}' does not match body value '${String(source)}'`);
    }
  }
  return undefined;
}
