import type {
  GetPromptResult,
  Implementation,
  Prompt,
  Resource,
  ResourceTemplate,
  ServerCapabilities,
  Tool,
} from "@modelcontextprotocol/sdk/types.js";
import type { InputAnswers, InputRequired, TrestleError } from "@trestle/core";
import type { ForwardUpstream } from "@trestle/core/catalog";

/** What an upstream MCP server offers, every page of every list it advertises (what the forwards import). */
export interface UpstreamCatalog {
  serverInfo: Implementation;
  capabilities: ServerCapabilities;
  instructions?: string;
  tools: Tool[];
  resources: Resource[];
  resourceTemplates: ResourceTemplate[];
  prompts: Prompt[];
}

/**
 * A forward's prompt as its upstream expanded it; `inputRequired` (with empty `messages`) when a 2026-07-28
 * upstream needs input first: its requests under the upstream's keys, its request state verbatim.
 */
export type ForwardPromptResult = GetPromptResult & { inputRequired?: InputRequired };

/** How a forward's upstream is watched: its timeouts, and what to do when its catalog changes or it fails. */
export interface UpstreamWatchOptions {
  /** The forward's service name: a sandboxed stdio server's home is kept under it. */
  service: string;
  /** The first connection's start and `initialize` deadline. */
  startTimeoutMs: number;
  /** Every later connection's `initialize` deadline. */
  handshakeTimeoutMs: number;
  /** Deadline of one listing on an open connection. */
  timeoutMs: number;
  /** The new catalog after the upstream said a list changed, or after a reconnection. */
  onChange(catalog: UpstreamCatalog): void;
  /** A refresh or a reconnection failed; the watch keeps trying. */
  onError(error: TrestleError): void;
}

/** A live view of an upstream's catalog, on a connection of its own. */
export interface UpstreamCatalogWatch {
  /** The latest catalog. */
  readonly catalog: UpstreamCatalog;
  /** Lists everything again now and returns it. */
  refresh(): Promise<UpstreamCatalog>;
  /**
   * `prompts/get` on the watch's connection; `input` carries the client's answers when this get repeats one that
   * ended in `inputRequired` (a 2026-07-28 upstream's `input_required`).
   */
  getPrompt(
    name: string,
    args: Record<string, string>,
    options?: { signal?: AbortSignal; timeoutMs?: number; input?: InputAnswers },
  ): Promise<ForwardPromptResult>;
  /** Stops watching and disconnects. Idempotent. */
  close(): Promise<void>;
}

/**
 * What the forwards module needs of the MCP transport, injected by the composition root (router.ts) so that no
 * module but the composition root imports a concrete transport: `@trestle/transport-mcp`'s
 * `watchUpstreamCatalog` and `mcpToolUri` fit it as they are.
 */
export interface UpstreamConnector {
  /**
   * Connects to `upstream`, lists its catalog and keeps listening for its changes.
   * @throws TrestleError when the first connection or listing fails.
   */
  watch(upstream: ForwardUpstream, options: UpstreamWatchOptions): Promise<UpstreamCatalogWatch>;
  /**
   * The catalog location of tool `toolName` of forward `forward`, the one the transport reads back on a call
   * (`upstream` says which transport: an MCP server's tool or an A2A agent's skill).
   */
  toolUri(forward: string, toolName: string, upstream?: ForwardUpstream): string;
}
