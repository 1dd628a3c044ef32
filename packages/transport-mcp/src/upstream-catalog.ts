import {
  ListPromptsResultSchema,
  ListResourcesResultSchema,
  ListResourceTemplatesResultSchema,
  ListToolsResultSchema,
} from "@modelcontextprotocol/core";
import type {
  GetPromptResult,
  Implementation,
  Prompt,
  Resource,
  ResourceTemplate,
  ServerCapabilities,
  Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import {
  Code,
  createCallScope,
  type InputAnswers,
  type JsonObject,
  type PromptResult,
  TrestleError,
} from "@trestle/core";
import { allPages } from "./list-pages.js";
import { type FailureSubject, failureSubject, isSessionGone, requestFailure } from "./mcp-failure.js";
import { invalidMcpHeaderReason } from "./mcp-param-headers.js";
import type { McpUpstream } from "./mcp-upstream.js";
import { inputRequiredOf, inputResponseParams, type McpEra, SERVER_INFO_META_KEY } from "./modern-era.js";
import { createStdioSandbox, type StdioSandbox } from "./stdio-sandbox.js";
import { DEFAULT_HANDSHAKE_TIMEOUT_MS, DEFAULT_START_TIMEOUT_MS } from "./timeouts.js";
import {
  type McpListKind,
  openUpstreamConnection,
  type UpstreamConnection,
  type UpstreamMethod,
} from "./upstream-connection.js";

type ListSchema =
  | typeof ListToolsResultSchema
  | typeof ListResourcesResultSchema
  | typeof ListResourceTemplatesResultSchema
  | typeof ListPromptsResultSchema;

/** What an upstream MCP server offers, every page of every list it advertises. */
export interface UpstreamCatalog {
  /** The server's own `serverInfo` (name, version, title…). */
  serverInfo: Implementation;
  /** The capabilities the server advertised in `initialize` (legacy) or `server/discover` (modern). */
  capabilities: ServerCapabilities;
  /**
   * The era the server speaks: `modern` (2026-07-28, stateless) or `legacy` (`initialize` and a session).
   * Always set on a listing; optional so that a catalog built by hand (a test's) need not name one.
   */
  era?: McpEra;
  /** The revision spoken with it: `2026-07-28`, or the one `initialize` negotiated (when known). */
  protocolVersion?: string;
  /** The server's `instructions`, when it gave any. */
  instructions?: string;
  /** Its tools, each with its full input (and output) JSON Schema. Empty when it has no `tools` capability. */
  tools: Tool[];
  /** Its resources. Empty when it has no `resources` capability. */
  resources: Resource[];
  /** Its resource templates. Empty when it has no `resources` capability. */
  resourceTemplates: ResourceTemplate[];
  /** Its prompts. Empty when it has no `prompts` capability. */
  prompts: Prompt[];
  /**
   * Tools left out of `tools` because their `x-mcp-header` marks break the rules of MCP 2026-07-28 over
   * Streamable HTTP (a client must not offer them), each with why. Absent when none was.
   */
  rejectedTools?: { name: string; reason: string }[];
}

/** Options for {@link listUpstreamCatalog}. */
export interface UpstreamCatalogOptions {
  /**
   * How long the server may take to start and answer `initialize` on the first connection (for a stdio server
   * run by `npx -y`, the package's download included). Default 120,000 ms ({@link DEFAULT_START_TIMEOUT_MS}).
   */
  startTimeoutMs?: number;
  /**
   * How long the server may take to answer `initialize` on a later connection (a watch reconnecting).
   * {@link listUpstreamCatalog} connects once and uses it only when `startTimeoutMs` is absent.
   * Default 30,000 ms ({@link DEFAULT_HANDSHAKE_TIMEOUT_MS}).
   */
  handshakeTimeoutMs?: number;
  /**
   * Deadline of one listing. For {@link listUpstreamCatalog}, of the whole run, handshake included (default:
   * the handshake's timeout plus 30,000 ms); for {@link watchUpstreamCatalog}, of each listing on an open
   * connection, the handshake apart (default 30,000 ms).
   */
  timeoutMs?: number;
  /** Cancels the listing. */
  signal?: AbortSignal;
  /** How the router introduces itself in `initialize`. Default `{ name: "trestle", version: "0.1.0" }`. */
  clientInfo?: Implementation;
  /** Each stderr line of a stdio server, scrubbed of its arguments' and environment's values. */
  onStderr?: (line: string) => void;
  /**
   * The sandbox a stdio server is started in (see {@link createStdioSandbox}; the server's own `sandbox: false`
   * opts out). Default: a sandbox of this listing or watch alone, whose temporary home is removed when it ends.
   */
  sandbox?: StdioSandbox;
  /** The key the server's home is kept under in `sandbox` (a router: the forward's service name). Default `catalog`. */
  sandboxKey?: string;
}

const DEFAULT_CATALOG_TIMEOUT_MS = 30_000;
const DEFAULT_CLIENT_INFO: Implementation = { name: "trestle", version: "0.1.0" };
/** Lists every page of every list the connected server advertises. */
async function fetchCatalog(
  connection: UpstreamConnection,
  subject: FailureSubject,
  signal: AbortSignal,
  deadlineMs: number,
): Promise<UpstreamCatalog> {
  const { capabilities } = connection;
  // A signal of its own per request: the SDK never removes the abort listener it adds to a request's signal.
  const options = () => ({ signal: AbortSignal.any([signal]), timeout: deadlineMs + 1_000 });
  const page = (cursor: string | undefined): JsonObject => (cursor === undefined ? {} : { cursor });
  /** One page of a list, checked against the SDK's wire schema (a modern upstream's answer arrives raw). */
  const listPage = async <S extends ListSchema>(
    listMethod: UpstreamMethod,
    schema: S,
    cursor: string | undefined,
  ): Promise<ReturnType<S["parse"]>> => {
    const raw = await connection.request(listMethod, page(cursor), options());
    const parsed = schema.safeParse(raw);
    if (!parsed.success) {
      throw new TrestleError(
        `The MCP server ${subject.label} answered ${listMethod} with a result that is not valid MCP`,
        Code.Internal,
      );
    }
    return parsed.data as ReturnType<S["parse"]>;
  };
  let method: UpstreamMethod = "tools/list";
  try {
    const tools = capabilities.tools
      ? await allPages(subject, method, async (cursor) => {
          const r = await listPage("tools/list", ListToolsResultSchema, cursor);
          return { nextCursor: r.nextCursor, items: r.tools as Tool[] };
        })
      : [];
    method = "resources/list";
    const resources = capabilities.resources
      ? await allPages(subject, method, async (cursor) => {
          const r = await listPage("resources/list", ListResourcesResultSchema, cursor);
          return { nextCursor: r.nextCursor, items: r.resources as Resource[] };
        })
      : [];
    method = "resources/templates/list";
    const resourceTemplates = capabilities.resources
      ? await allPages(subject, method, async (cursor) => {
          const r = await listPage("resources/templates/list", ListResourceTemplatesResultSchema, cursor);
          return { nextCursor: r.nextCursor, items: r.resourceTemplates as ResourceTemplate[] };
        })
      : [];
    method = "prompts/list";
    const prompts = capabilities.prompts
      ? await allPages(subject, method, async (cursor) => {
          const r = await listPage("prompts/list", ListPromptsResultSchema, cursor);
          return { nextCursor: r.nextCursor, items: r.prompts as Prompt[] };
        })
      : [];
    const rejectedTools: { name: string; reason: string }[] = [];
    const offered =
      connection.era === "modern" && subject.kind === "http"
        ? tools.filter((tool) => {
            const reason = invalidMcpHeaderReason(tool.inputSchema);
            if (reason !== undefined) rejectedTools.push({ name: tool.name, reason });
            return reason === undefined;
          })
        : tools;
    const catalog: UpstreamCatalog = {
      serverInfo: connection.serverInfo,
      capabilities,
      era: connection.era,
      ...(connection.protocolVersion !== undefined ? { protocolVersion: connection.protocolVersion } : {}),
      tools: offered,
      resources,
      resourceTemplates,
      prompts,
    };
    if (rejectedTools.length > 0) catalog.rejectedTools = rejectedTools;
    const { instructions } = connection;
    if (instructions !== undefined) catalog.instructions = instructions;
    return catalog;
  } catch (error) {
    if (error instanceof TrestleError && !signal.aborted) throw error;
    throw requestFailure(error, subject, method, signal, deadlineMs);
  }
}

/** The sandbox a listing or watch starts its server in: the given one, or one of its own to dispose of at its end. */
function sandboxFor(options: UpstreamCatalogOptions): { sandbox: StdioSandbox; dispose(): void } {
  if (options.sandbox) return { sandbox: options.sandbox, dispose: () => undefined };
  const own = createStdioSandbox();
  return { sandbox: own, dispose: () => own.dispose() };
}

async function openForCatalog(
  upstream: McpUpstream,
  subject: FailureSubject,
  options: UpstreamCatalogOptions,
  sandbox: StdioSandbox,
  handshakeTimeoutMs: number,
  signal: AbortSignal,
  deadlineMs: number,
  hooks: Parameters<typeof openUpstreamConnection>[1]["hooks"] = {},
): Promise<UpstreamConnection> {
  const key = options.sandboxKey ?? "catalog";
  try {
    return await openUpstreamConnection(upstream, {
      subject,
      clientInfo: options.clientInfo ?? DEFAULT_CLIENT_INFO,
      handshakeTimeoutMs,
      signal,
      hooks: { ...hooks, ...(options.onStderr ? { onStderr: options.onStderr } : {}) },
      launch: (stdio) => sandbox.launch(stdio, key),
    });
  } catch (error) {
    if (signal.aborted) throw requestFailure(error, subject, "initialize", signal, deadlineMs);
    throw error;
  }
}

/**
 * Connects to an upstream (starting it, for stdio), lists everything it offers, every page, and disconnects
 * (ending the process). Lists the server does not advertise are empty and are not asked for.
 *
 * @throws TrestleError with one sentence naming the server by its program name or origin only: `Unavailable`
 * when it cannot be started, reached or initialised; the mapped JSON-RPC error of a list request;
 * `DeadlineExceeded` past `timeoutMs`; `Canceled` when `signal` aborts.
 *
 * @example
 * ```ts
 * const catalog = await listUpstreamCatalog({ kind: "stdio", command: "npx", args: ["-y", "some-mcp-server"] });
 * for (const tool of catalog.tools) importTool(tool.name, tool.inputSchema);
 * ```
 */
export async function listUpstreamCatalog(
  upstream: McpUpstream,
  options: UpstreamCatalogOptions = {},
): Promise<UpstreamCatalog> {
  const subject = failureSubject(upstream);
  const handshakeTimeoutMs = options.startTimeoutMs ?? options.handshakeTimeoutMs ?? DEFAULT_START_TIMEOUT_MS;
  const deadlineMs = options.timeoutMs ?? handshakeTimeoutMs + DEFAULT_CATALOG_TIMEOUT_MS;
  const scope = createCallScope(options.signal, deadlineMs);
  const sandbox = sandboxFor(options);
  try {
    const connection = await openForCatalog(
      upstream,
      subject,
      options,
      sandbox.sandbox,
      handshakeTimeoutMs,
      scope.signal,
      deadlineMs,
    );
    try {
      return await fetchCatalog(connection, subject, scope.signal, deadlineMs);
    } finally {
      await connection.close();
    }
  } finally {
    scope.dispose();
    sandbox.dispose();
  }
}

/** Options for {@link watchUpstreamCatalog}. */
export interface WatchUpstreamCatalogOptions extends UpstreamCatalogOptions {
  /**
   * Called with the new catalog after the server said one of its lists changed (`changed` names which), or
   * after the watch reconnected to a server that restarted (`changed` names every list). Notifications that
   * arrive together are coalesced into one listing.
   */
  onChange(catalog: UpstreamCatalog, changed: McpListKind[]): void;
  /** Called when a refresh or a reconnection fails; the watch keeps trying to reconnect. */
  onError?(error: TrestleError): void;
  /** Wait before the first reconnection attempt; doubled after each failure, up to 30 s. Default 250 ms. */
  reconnectDelayMs?: number;
}

/**
 * A prompt as the watch's upstream expanded it. When a modern upstream needs input first, `inputRequired` says
 * what (its requests under the upstream's own keys, its `requestState` verbatim as `state`) and `messages` is
 * empty; repeat the get with the client's answers as `input`.
 */
export type WatchedPromptResult = GetPromptResult & { inputRequired?: PromptResult["inputRequired"] };

/** A live view of an upstream's catalog, kept current by its `list_changed` notifications. */
export interface UpstreamCatalogWatch {
  /** The latest catalog. */
  readonly catalog: UpstreamCatalog;
  /** Lists everything again now and returns it (without calling `onChange`). */
  refresh(): Promise<UpstreamCatalog>;
  /**
   * Asks the server for one of its prompts (`prompts/get`) on the watch's connection.
   * @throws TrestleError as a call: `Unavailable` while reconnecting, the mapped JSON-RPC error, `DeadlineExceeded`.
   */
  getPrompt(
    name: string,
    args: Record<string, string>,
    options?: { signal?: AbortSignal; timeoutMs?: number; input?: InputAnswers },
  ): Promise<WatchedPromptResult>;
  /** Stops watching and disconnects (ending the process, for stdio). Idempotent. */
  close(): Promise<void>;
}

const ALL_KINDS: McpListKind[] = ["tools", "resources", "prompts"];
const COALESCE_MS = 50;
const MAX_RECONNECT_DELAY_MS = 30_000;

/**
 * Connects to an upstream, lists its catalog, and keeps the connection open to hear its `list_changed`
 * notifications: each one (coalesced) lists the catalog again and calls `onChange`. When the server dies (stdio)
 * or forgets the session (HTTP), the watch reconnects with back-off and reports the catalog again. For a stdio
 * upstream the watch runs its own server process, apart from those the transport runs for calls.
 *
 * @throws TrestleError as {@link listUpstreamCatalog} when the first connection or listing fails.
 *
 * @example
 * ```ts
 * const watch = await watchUpstreamCatalog(upstream, {
 *   onChange: (catalog, changed) => reimport(forward, catalog, changed),
 *   onError: (error) => log.warn({ forward: forward.name, error: error.message }),
 * });
 * // later
 * await watch.close();
 * ```
 */
export async function watchUpstreamCatalog(
  upstream: McpUpstream,
  options: WatchUpstreamCatalogOptions,
): Promise<UpstreamCatalogWatch> {
  const subject = failureSubject(upstream);
  const deadlineMs = options.timeoutMs ?? DEFAULT_CATALOG_TIMEOUT_MS;
  const sandbox = sandboxFor(options);
  const stop = new AbortController();
  let stopped = false;
  let connection: UpstreamConnection | undefined;
  let current: UpstreamCatalog;
  const pending = new Set<McpListKind>();
  let coalesceTimer: NodeJS.Timeout | undefined;
  let reconnectTimer: NodeJS.Timeout | undefined;
  let reconnectDelay = options.reconnectDelayMs ?? 250;
  let queue: Promise<unknown> = Promise.resolve();

  function report(error: unknown): void {
    if (stopped || !options.onError) return;
    try {
      options.onError(TrestleError.from(error));
    } catch {
      // A listener that throws must not stop the watch.
    }
  }

  function changed(catalog: UpstreamCatalog, kinds: McpListKind[]): void {
    try {
      options.onChange(catalog, kinds);
    } catch {
      // A listener that throws must not stop the watch.
    }
  }

  /** Runs one listing at a time, in order. */
  function serial<T>(task: () => Promise<T>): Promise<T> {
    const run = queue.then(task, task);
    queue = run.catch(() => undefined);
    return run;
  }

  async function list(on: UpstreamConnection): Promise<UpstreamCatalog> {
    const scope = createCallScope(stop.signal, deadlineMs);
    try {
      current = await fetchCatalog(on, subject, scope.signal, deadlineMs);
      return current;
    } finally {
      scope.dispose();
    }
  }

  /**
   * Opens the watch's connection. The handshake has its own timeout (long for the first start, which may
   * download the server); the listing deadline starts once it is done.
   */
  async function connect(first: boolean): Promise<UpstreamConnection> {
    const handshakeTimeoutMs = first
      ? (options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS)
      : (options.handshakeTimeoutMs ?? DEFAULT_HANDSHAKE_TIMEOUT_MS);
    // The margin only lets the handshake's own timer fire first, so that the error names the handshake.
    const scope = createCallScope(stop.signal, handshakeTimeoutMs + 1_000);
    try {
      const opened = await openForCatalog(
        upstream,
        subject,
        options,
        sandbox.sandbox,
        handshakeTimeoutMs,
        scope.signal,
        handshakeTimeoutMs + 1_000,
        {
          onListChanged: listChanged,
          onClosed() {
            if (!stopped && connection === opened) scheduleReconnect();
          },
          onError(error) {
            // An HTTP server that restarted shows up here first, as its event stream failing.
            if (!stopped && connection === opened && isSessionGone(error)) scheduleReconnect();
          },
        },
      );
      return opened;
    } finally {
      scope.dispose();
    }
  }

  function listChanged(kind: McpListKind): void {
    pending.add(kind);
    coalesceTimer ??= setTimeout(flush, COALESCE_MS);
  }

  /**
   * A modern upstream sends list changes only on a `subscriptions/listen` stream: the watch keeps one open for
   * the lists the upstream says change, and reconnects when the stream ends. An upstream that refuses the
   * stream is watched no further (reported once); its catalog stays as listed.
   */
  function listen(opened: UpstreamConnection): void {
    if (!opened.listen) return;
    const kinds = ALL_KINDS.filter(
      (kind) => (opened.capabilities[kind] as { listChanged?: boolean } | undefined)?.listChanged === true,
    );
    if (kinds.length === 0) return;
    opened.listen(kinds, listChanged, stop.signal).then(
      () => {
        if (!stopped && connection === opened) scheduleReconnect();
      },
      (error: unknown) => {
        if (stopped || connection !== opened) return;
        if (error instanceof McpError && error.code !== ErrorCode.ConnectionClosed) {
          report(requestFailure(error, subject, "subscriptions/listen", stop.signal, deadlineMs));
          return;
        }
        scheduleReconnect();
      },
    );
  }

  function flush(): void {
    coalesceTimer = undefined;
    const kinds = ALL_KINDS.filter((kind) => pending.has(kind));
    pending.clear();
    const on = connection;
    if (!on || stopped) return;
    void serial(() => list(on)).then(
      (catalog) => {
        if (!stopped) changed(catalog, kinds);
      },
      (error: unknown) => {
        report(error);
        if (
          !stopped &&
          connection === on &&
          error instanceof TrestleError &&
          error.code === Code.Unavailable
        ) {
          scheduleReconnect();
        }
      },
    );
  }

  function scheduleReconnect(): void {
    if (stopped || reconnectTimer) return;
    const dead = connection;
    connection = undefined;
    void dead?.close({ sessionGone: true });
    reconnectTimer = setTimeout(() => {
      reconnectTimer = undefined;
      void serial(async () => {
        const opened = await connect(false);
        if (stopped) {
          await opened.close();
          return;
        }
        connection = opened;
        listen(opened);
        const catalog = await list(opened);
        reconnectDelay = options.reconnectDelayMs ?? 250;
        changed(catalog, ALL_KINDS);
      }).catch((error: unknown) => {
        report(error);
        reconnectDelay = Math.min(reconnectDelay * 2, MAX_RECONNECT_DELAY_MS);
        scheduleReconnect();
      });
    }, reconnectDelay);
    reconnectTimer.unref();
  }

  try {
    connection = await connect(true);
  } catch (error) {
    sandbox.dispose();
    throw error;
  }
  listen(connection);
  try {
    await list(connection);
  } catch (error) {
    stopped = true;
    await connection.close();
    sandbox.dispose();
    throw error;
  }

  return {
    get catalog() {
      return current;
    },
    refresh() {
      const on = connection;
      if (stopped) return Promise.reject(new TrestleError("The catalog watch is closed", Code.Unavailable));
      if (!on) {
        return Promise.reject(
          new TrestleError(
            `The MCP server ${subject.label} is not connected; the watch is reconnecting`,
            Code.Unavailable,
          ),
        );
      }
      return serial(() => list(on));
    },
    async getPrompt(name, args, callOptions = {}) {
      const on = connection;
      if (stopped || !on) {
        throw new TrestleError(
          `The MCP server ${subject.label} is not connected; the watch is reconnecting`,
          Code.Unavailable,
        );
      }
      const timeoutMs = callOptions.timeoutMs ?? deadlineMs;
      const scope = createCallScope(
        AbortSignal.any([stop.signal, ...(callOptions.signal ? [callOptions.signal] : [])]),
        timeoutMs,
      );
      try {
        if (callOptions.input && on.era !== "modern") {
          throw new TrestleError(
            `The MCP server ${subject.label} speaks MCP ${on.protocolVersion ?? "before 2026-07-28"}, which has no input_required round trip to answer`,
            Code.FailedPrecondition,
          );
        }
        const result = await on.request(
          "prompts/get",
          { name, arguments: args, ...inputResponseParams(callOptions.input) },
          { signal: scope.signal, timeout: timeoutMs + 1_000 },
        );
        const inputRequired = inputRequiredOf(result, subject);
        const { resultType: _resultType, _meta, ...rest } = result;
        const { [SERVER_INFO_META_KEY]: _serverInfo, ...meta } = (_meta ?? {}) as JsonObject;
        if (Object.keys(meta).length > 0) rest._meta = meta;
        if (inputRequired) return { ...rest, messages: [], inputRequired } as WatchedPromptResult;
        return rest as unknown as WatchedPromptResult;
      } catch (error) {
        if (error instanceof TrestleError && !scope.signal.aborted) throw error;
        throw requestFailure(error, subject, "prompts/get", scope.signal, timeoutMs);
      } finally {
        scope.dispose();
      }
    },
    async close() {
      if (stopped) return;
      stopped = true;
      stop.abort(new TrestleError("The catalog watch is closed", Code.Canceled));
      clearTimeout(coalesceTimer);
      clearTimeout(reconnectTimer);
      const last = connection;
      connection = undefined;
      await queue;
      await last?.close();
      sandbox.dispose();
    },
  };
}
