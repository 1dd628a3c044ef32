import type { ServerCapabilities } from "@modelcontextprotocol/sdk/types.js";
import type { CallContext } from "@trestle/bridge";
import type { Cancellation, TranslationLeg } from "@trestle/core";
import type { CallService } from "../calls/call-service.js";
import { JsonRpcErrorCode } from "./json-rpc.js";
import type { RequestOrigin } from "./method-table.js";
import type { ParkedCalls } from "./parked-calls.js";
import { ProtocolError } from "./protocol-error.js";
import type { RequestStateSealer } from "./request-state.js";
import type { TaskRunner } from "./tasks.js";

/** What the MCP front serves a namespace with: the call service, and what only MCP asks about. */
export interface McpBackend {
  /** Every call, read and listing goes through it, with the request's principal. */
  calls: CallService;
  /**
   * True when resources can be read in `namespace`: it has some in its catalog, or a service that could serve
   * them is registered (a resource-provider or multi-capability service).
   */
  canServeResources(namespace: string): boolean;
  /** What the upstreams of a namespace's forwards advertise. Absent: no forwards. */
  forwards?: McpForwards;
  /** Runs calls as MCP tasks for stateless clients that declare the extension. Absent: no tasks. */
  tasks?: TaskRunner;
}

/** What the MCP front asks about forwarded MCP servers. */
export interface McpForwards {
  /** The capabilities the upstreams of a namespace's forwards advertise. */
  capabilitiesOf(namespace: string): readonly { forward: string; capabilities: ServerCapabilities }[];
}

/** Settings of the MCP endpoint. */
export interface McpSettings {
  serverInfo: { name: string; version: string };
  /** Items per page of tools/list, resources/list and prompts/list. */
  pageSize: number;
  /** True where list_changed notifications can reach the client (stateful HTTP, stdio). */
  listChangedDelivered: boolean;
  /** Request headers forwarded to capabilities as call metadata (lower-case names), e.g. `x-tenant`. */
  forwardHeaders: readonly string[];
  /** Longest URI `resources/read` accepts, in characters; {@link DEFAULT_MAX_RESOURCE_URI_LENGTH} when absent. */
  maxResourceUriLength?: number;
  /** The MCP revisions accepted, oldest first. */
  acceptedRevisions: readonly string[];
  /**
   * Caching hints on stateless list and discover results: how long a client may keep them (it hears of changes
   * on `subscriptions/listen` sooner), and whether shared caches may (`public`: no token is needed here).
   */
  caching: { listTtlMs: number; cacheScope: "public" | "private" };
  /**
   * Key that seals the `requestState` of `input_required` results. Replicas sharing it accept each other's
   * states (any replica serves the repeated request); a random key (the default) limits them to this process.
   */
  requestStateKey?: Buffer;
}

/**
 * Longest resource URI read by default: far beyond any real one, and a bound on the work one request can ask of
 * the template matcher (which scans every template of the namespace).
 */
export const DEFAULT_MAX_RESOURCE_URI_LENGTH = 8 * 1024;

/** The capabilities a namespace may advertise, each narrowed away when a forward's upstream lacks it. */
export type NarrowedCapability = "tools" | "resources" | "prompts" | "logging" | "completions";

/** What the method groups of one namespace share: its backend and settings, and the state the methods keep. */
export interface NamespaceScope {
  readonly namespace: string;
  readonly backend: McpBackend;
  readonly settings: McpSettings;
  /** Seals the `requestState` of `input_required` results. */
  readonly requestStates: RequestStateSealer;
  /** Calls held while a stateless client answers a legacy upstream's questions. */
  readonly parkedCalls: ParkedCalls;
  /** One frozen client leg per revision and method, for the calls' translation reports. */
  readonly clientLeg: (protocol: string, version: string, method: string) => TranslationLeg;
  /** The first forward of this namespace whose upstream lacks `capability`, if any. */
  lackingForward(capability: NarrowedCapability): string | undefined;
  /** Refuses a method of a capability narrowed away, with -32601 naming the method and the forward. */
  requireCapability(capability: NarrowedCapability, method: string): void;
  /** Caching hints for a stateless client's list result; nothing for a session's. */
  cacheHints(origin: RequestOrigin): { ttlMs: number; cacheScope: "public" | "private" } | undefined;
  /** A call's context; `cancel` is the request's cancellation, or a task's signal where the call outlives it. */
  contextFor(origin: RequestOrigin, cancel: Cancellation | AbortSignal): CallContext;
}

/** Makes the scope the method groups of `namespace` share. */
export function createNamespaceScope(
  namespace: string,
  backend: McpBackend,
  settings: McpSettings,
  state: Pick<NamespaceScope, "requestStates" | "parkedCalls" | "clientLeg">,
): NamespaceScope {
  const lackingForward = (capability: NarrowedCapability): string | undefined =>
    backend.forwards?.capabilitiesOf(namespace).find((f) => f.capabilities[capability] === undefined)
      ?.forward;
  return {
    namespace,
    backend,
    settings,
    ...state,
    lackingForward,
    requireCapability(capability, method) {
      const forward = lackingForward(capability);
      if (forward === undefined) return;
      throw new ProtocolError(
        JsonRpcErrorCode.MethodNotFound,
        `Method not found: ${method} is not offered in ${namespace ? `namespace '${namespace}'` : "the default namespace"}, because the MCP server forwarded as '${forward}' does not support ${capability}`,
      );
    },
    cacheHints(origin) {
      return origin.modern
        ? { ttlMs: settings.caching.listTtlMs, cacheScope: settings.caching.cacheScope }
        : undefined;
    },
    contextFor(origin, cancel) {
      const metadata: Record<string, string> = {};
      for (const name of settings.forwardHeaders) {
        const value = origin.headers[name];
        if (typeof value === "string") metadata[name] = value;
      }
      const traceparent = origin.headers.traceparent;
      if (typeof traceparent === "string") metadata.traceparent = traceparent;
      const context: CallContext = { requestId: String(origin.originalId), namespace, metadata };
      if (origin.session) context.connectionId = origin.session.id;
      if (cancel instanceof AbortSignal) context.signal = cancel;
      else context.cancellation = cancel;
      return context;
    },
  };
}
