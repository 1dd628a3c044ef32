import type { GetPromptResult, ServerCapabilities } from "@modelcontextprotocol/sdk/types.js";
import {
  Code,
  type ForwardReference,
  type PromptReference,
  type ServiceResolver,
  type ServiceTarget,
  TrestleError,
} from "@trestle/core";
import { type Catalog, type CatalogChange, normalizeNamespace, parseForward } from "@trestle/registry";
import {
  describeUpstream,
  type McpUpstream,
  type UpstreamCatalog,
  type UpstreamCatalogWatch,
  watchUpstreamCatalog,
} from "@trestle/transport-mcp";
import type { Logger } from "pino";
import { canonicalJson } from "./canonical-json.js";
import { importedName, planImport, type SkippedEntry } from "./catalog-import.js";
import { removeImported, type SyncResult, syncImport } from "./catalog-sync.js";
import {
  forwardServiceName,
  forwardTarget,
  type PublicUpstream,
  publicUpstream,
} from "./forward-identity.js";

/** Where a forward's connection to its upstream stands. */
export type ForwardState = "connecting" | "ready" | "reconnecting" | "failed";

/** A forward's import, as the management API reports it. */
export interface ForwardStatus {
  state: ForwardState;
  /** The upstream's own `serverInfo`, once connected. */
  server?: { name: string; version: string };
  /** The MCP capabilities the upstream advertised, once connected. */
  capabilities?: string[];
  /** How many entries the latest import holds. */
  imported: { tools: number; resources: number; resourceTemplates: number; prompts: number };
  /** Upstream entries left out of the latest import, and why. */
  skipped: SkippedEntry[];
  /** When the latest import ran (ISO 8601). */
  importedAt?: string;
  /** The latest failure, as one sentence that names the server by program or origin only. */
  error?: string;
}

/** A forward as the management API shows it: its upstream without arguments, environment or header values. */
export interface ForwardView {
  id?: string;
  name: string;
  namespace: string;
  description?: string;
  prefix?: string;
  labels?: Record<string, string>;
  /** The service name its entries are routed to. */
  service: string;
  upstream: PublicUpstream;
  status: ForwardStatus;
}

/** Options for {@link createForwardManager}. */
export interface ForwardManagerOptions {
  catalog: Catalog;
  logger: Logger;
  /** How long an upstream may take to start and answer `initialize`. */
  handshakeTimeoutMs: number;
  /** Deadline of one listing of an upstream's catalog, handshake included. */
  catalogTimeoutMs: number;
  /** Called when a forward goes away or changes upstream, so the transport ends what it runs for it. */
  onReleased?(target: ServiceTarget): void;
  /** For tests: how an upstream is watched. */
  watch?: typeof watchUpstreamCatalog;
}

/**
 * Forwards: existing MCP servers whose catalogs are imported into namespaces and whose calls go through the MCP
 * transport. It keeps one catalog watch per forward (its own connection, so the upstream's `list_changed`
 * re-imports at once), follows forwards added or removed on any replica through the catalog's change feed, and
 * answers the questions the rest of the router asks about them.
 */
export interface ForwardManager {
  /** Watches every forward the catalog holds and follows the catalog's changes. */
  start(): void;
  /**
   * Connects to the upstream, saves the forward, imports its catalog and returns it. Nothing is saved when the
   * upstream cannot be started, reached or listed: the error says why in one sentence.
   * @throws TrestleError `InvalidArgument`, `NotFound` (namespace), `AlreadyExists`, or the upstream's failure.
   */
  add(input: unknown): Promise<ForwardView>;
  /**
   * Replaces a forward's upstream, prefix, description or labels: connects to the new upstream first (nothing
   * changes when that fails), then saves and imports again; entries the new import no longer holds are removed.
   * @throws TrestleError `InvalidArgument` (also for a changed name or namespace), `NotFound`, the upstream's failure.
   */
  update(namespace: string, name: string, input: unknown): Promise<ForwardView>;
  /** Removes a forward and every entry it imported. @throws TrestleError `NotFound`. */
  remove(namespace: string, name: string): Promise<ForwardView>;
  /** Lists the upstream's catalog again and re-imports it. @throws TrestleError `NotFound`, the upstream's failure. */
  refresh(namespace: string, name: string): Promise<ForwardView>;
  /** The forwards of a namespace, or of every namespace with `"*"`. */
  list(namespace: string): ForwardView[];
  get(namespace: string, name: string): ForwardView | undefined;
  /** The upstream behind a target (for the MCP transport), or `undefined` when the target is no forward. */
  upstreamFor(target: ServiceTarget): McpUpstream | undefined;
  /**
   * `base` with forwards' service names answered by their targets: every other name, and every other method of
   * `base` (the registry's `explain`), is `base`'s own.
   */
  resolver<R extends ServiceResolver>(base: R): R;
  /** True when `serviceName` is a forward's. */
  isForwarded(serviceName: string): boolean;
  /** The capabilities the upstreams of a namespace's forwards advertise (those connected at least once). */
  capabilitiesOf(namespace: string): { forward: string; capabilities: ServerCapabilities }[];
  /** Expands a prompt imported from a forward by asking its upstream. */
  getPrompt(
    prompt: PromptReference,
    args: Record<string, string>,
    options?: { signal?: AbortSignal },
  ): Promise<GetPromptResult>;
  /** Stops every watch (ending their processes). */
  close(): Promise<void>;
}

const FIRST_RETRY_MS = 1_000;
const MAX_IMPORT_ATTEMPTS = 5;
const MAX_RETRY_MS = 60_000;

interface LiveForward {
  forward: ForwardReference;
  namespace: string;
  service: string;
  /** What a change must differ in to need a new watch. */
  identity: string;
  watch?: UpstreamCatalogWatch;
  status: ForwardStatus;
  /** Imports run one at a time, in order. */
  queue: Promise<unknown>;
  retryTimer?: NodeJS.Timeout;
  retryDelayMs: number;
  stopped: boolean;
}

const keyOf = (namespace: string, name: string) => `${namespace}\u0000${name}`;
const identityOf = (forward: ForwardReference) => canonicalJson([forward.upstream, forward.prefix ?? ""]);

function emptyStatus(state: ForwardState): ForwardStatus {
  return { state, imported: { tools: 0, resources: 0, resourceTemplates: 0, prompts: 0 }, skipped: [] };
}

function advertised(capabilities: ServerCapabilities): string[] {
  return Object.keys(capabilities)
    .filter((k) => capabilities[k as keyof ServerCapabilities] !== undefined)
    .sort();
}

/** Creates the {@link ForwardManager}. */
export function createForwardManager(options: ForwardManagerOptions): ForwardManager {
  const { catalog, logger } = options;
  const watch = options.watch ?? watchUpstreamCatalog;
  const live = new Map<string, LiveForward>();
  const byService = new Map<string, LiveForward>();
  let unsubscribe: (() => void) | undefined;
  let closed = false;

  function view(entry: LiveForward): ForwardView {
    const f = entry.forward;
    return {
      ...(f.id ? { id: f.id } : {}),
      name: f.name,
      namespace: entry.namespace,
      ...(f.description ? { description: f.description } : {}),
      ...(f.prefix ? { prefix: f.prefix } : {}),
      ...(f.labels ? { labels: { ...f.labels } } : {}),
      service: entry.service,
      upstream: publicUpstream(f.upstream),
      status: structuredClone(entry.status),
    };
  }

  function logContext(entry: LiveForward) {
    return {
      namespace: entry.namespace,
      forward: entry.forward.name,
      upstream: describeUpstream(entry.forward.upstream),
    };
  }

  function serial<T>(entry: LiveForward, task: () => Promise<T>): Promise<T> {
    const run = entry.queue.then(task, task);
    entry.queue = run.catch(() => undefined);
    return run;
  }

  async function importCatalog(
    entry: LiveForward,
    upstream: UpstreamCatalog,
  ): Promise<SyncResult | undefined> {
    if (entry.stopped) return undefined;
    const plan = planImport(entry.forward, upstream, {
      tools: catalog.listTools(entry.namespace),
      resources: catalog.listResources(entry.namespace),
      prompts: catalog.listPrompts(entry.namespace),
    });
    const result = await syncImport(catalog, entry.namespace, entry.service, plan);
    const templates = plan.resources.filter((r) => r.location.includes("{")).length;
    entry.status = {
      ...entry.status,
      state: "ready",
      server: { name: upstream.serverInfo.name, version: upstream.serverInfo.version },
      capabilities: advertised(upstream.capabilities),
      imported: {
        tools: plan.tools.length,
        resources: plan.resources.length - templates,
        resourceTemplates: templates,
        prompts: plan.prompts.length,
      },
      skipped: plan.skipped,
      importedAt: new Date().toISOString(),
    };
    delete entry.status.error;
    logger.info(
      {
        ...logContext(entry),
        imported: entry.status.imported,
        skipped: plan.skipped.length,
        changes: result,
      },
      "forward imported",
    );
    for (const skip of plan.skipped) {
      logger.warn(
        { ...logContext(entry), kind: skip.kind, entry: skip.upstreamName, reason: skip.reason },
        "forward entry not imported",
      );
    }
    return result;
  }

  /**
   * Imports in the background. Another replica importing the same upstream at the same moment makes a write
   * collide (`AlreadyExists`, `Aborted`, `NotFound`): the view catches up and the import runs again, finding less
   * or nothing to write.
   */
  async function importNow(entry: LiveForward, upstream: UpstreamCatalog): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await serial(entry, () => importCatalog(entry, upstream));
        return;
      } catch (error) {
        const failure = TrestleError.from(error);
        const raced = [Code.AlreadyExists, Code.Aborted, Code.NotFound].includes(failure.code);
        if (!raced || attempt >= MAX_IMPORT_ATTEMPTS || entry.stopped) {
          entry.status = { ...entry.status, error: `Importing failed: ${failure.rawMessage}` };
          logger.warn({ ...logContext(entry), err: failure.rawMessage }, "forward import failed");
          throw failure;
        }
        await new Promise((resolve) => setTimeout(resolve, 200 * attempt));
      }
    }
  }

  function reimport(entry: LiveForward, upstream: UpstreamCatalog): void {
    void importNow(entry, upstream).catch(() => undefined);
  }

  async function connect(entry: LiveForward): Promise<UpstreamCatalogWatch> {
    const opened = await watch(entry.forward.upstream, {
      handshakeTimeoutMs: options.handshakeTimeoutMs,
      timeoutMs: options.catalogTimeoutMs,
      onChange(upstream) {
        if (entry.watch === opened) reimport(entry, upstream);
      },
      onError(error) {
        if (entry.watch !== opened || entry.stopped) return;
        entry.status = { ...entry.status, state: "reconnecting", error: error.rawMessage };
        logger.warn({ ...logContext(entry), err: error.rawMessage }, "forward upstream failed; reconnecting");
      },
    });
    if (entry.stopped) {
      await opened.close();
      throw new TrestleError(`The forward '${entry.forward.name}' was removed meanwhile`, Code.Aborted);
    }
    entry.watch = opened;
    return opened;
  }

  /** Connects a forward found in the catalog; on failure, tries again with back-off until it is removed. */
  function follow(entry: LiveForward): void {
    void connect(entry).then(
      (opened) => {
        entry.retryDelayMs = FIRST_RETRY_MS;
        reimport(entry, opened.catalog);
      },
      (error: unknown) => {
        if (entry.stopped) return;
        const failure = TrestleError.from(error);
        entry.status = { ...entry.status, state: "failed", error: failure.rawMessage };
        logger.warn(
          { ...logContext(entry), err: failure.rawMessage, retryInMs: entry.retryDelayMs },
          "forward upstream unavailable",
        );
        entry.retryTimer = setTimeout(() => {
          entry.retryTimer = undefined;
          if (!entry.stopped) follow(entry);
        }, entry.retryDelayMs);
        entry.retryTimer.unref();
        entry.retryDelayMs = Math.min(entry.retryDelayMs * 2, MAX_RETRY_MS);
      },
    );
  }

  function track(forward: ForwardReference, state: ForwardState): LiveForward {
    return register(unregistered(forward, state));
  }

  function register(entry: LiveForward): LiveForward {
    live.set(keyOf(entry.namespace, entry.forward.name), entry);
    byService.set(entry.service, entry);
    return entry;
  }

  function unregistered(forward: ForwardReference, state: ForwardState): LiveForward {
    const namespace = normalizeNamespace(forward.namespace);
    return {
      forward,
      namespace,
      service: forwardServiceName(namespace, forward.name),
      identity: identityOf(forward),
      status: emptyStatus(state),
      queue: Promise.resolve(),
      retryDelayMs: FIRST_RETRY_MS,
      stopped: false,
    };
  }

  /**
   * Stops following a forward. `release` ends the transport's processes for it too; a forward whose upstream
   * changed does not need that (the transport starts the new upstream apart and ends the old one's processes
   * when their calls are done).
   */
  async function untrack(entry: LiveForward, release = true): Promise<void> {
    entry.stopped = true;
    clearTimeout(entry.retryTimer);
    const key = keyOf(entry.namespace, entry.forward.name);
    if (live.get(key) === entry) live.delete(key);
    if (byService.get(entry.service) === entry) byService.delete(entry.service);
    const opened = entry.watch;
    entry.watch = undefined;
    await opened?.close().catch(() => undefined);
    if (release) options.onReleased?.(forwardTarget(entry.forward));
  }

  function onCatalogChange(change: CatalogChange): void {
    if (closed || change.kind !== "forward") return;
    const key = keyOf(change.namespace, change.key);
    const current = live.get(key);
    if (change.op === "removed") {
      if (current) void untrack(current);
      return;
    }
    const forward = catalog.getForward(change.namespace, change.key);
    if (!forward) return;
    if (current && current.identity === identityOf(forward)) {
      current.forward = forward;
      return;
    }
    if (current) void untrack(current);
    follow(track(forward, "connecting"));
  }

  function requireLive(namespace: string, name: string): LiveForward {
    const entry = live.get(keyOf(normalizeNamespace(namespace), name));
    if (!entry) {
      throw new TrestleError(
        `No forward named '${name}' exists in ${namespace ? `namespace '${namespace}'` : "the default namespace"}`,
        Code.NotFound,
      );
    }
    return entry;
  }

  return {
    start() {
      if (unsubscribe || closed) return;
      unsubscribe = catalog.onChange(onCatalogChange);
      for (const forward of catalog.listForwards("*")) {
        const namespace = normalizeNamespace(forward.namespace);
        if (!live.has(keyOf(namespace, forward.name))) follow(track(forward, "connecting"));
      }
    },

    async add(input) {
      const forward = parseForward(input);
      const namespace = normalizeNamespace(forward.namespace);
      if (!catalog.getNamespace(namespace)) {
        throw new TrestleError(`Namespace '${namespace}' does not exist`, Code.NotFound);
      }
      if (live.has(keyOf(namespace, forward.name)) || catalog.getForward(namespace, forward.name)) {
        throw new TrestleError(
          `A forward named '${forward.name}' already exists in ${namespace ? `namespace '${namespace}'` : "the default namespace"}`,
          Code.AlreadyExists,
        );
      }
      const entry = track({ ...forward, namespace }, "connecting");
      let opened: UpstreamCatalogWatch;
      try {
        opened = await connect(entry);
      } catch (error) {
        await untrack(entry);
        const failure = TrestleError.from(error);
        throw new TrestleError(
          `The forward '${forward.name}' was not added: ${failure.rawMessage}`,
          failure.code === Code.Unknown ? Code.Unavailable : failure.code,
        );
      }
      try {
        entry.forward = await catalog.addForward({ ...forward, namespace });
      } catch (error) {
        await untrack(entry);
        throw error;
      }
      await importNow(entry, opened.catalog);
      return view(entry);
    },

    async update(namespace, name, input) {
      const ns = normalizeNamespace(namespace);
      const current = requireLive(ns, name);
      const forward = parseForward(input);
      if (
        forward.name !== name ||
        (forward.namespace !== undefined && normalizeNamespace(forward.namespace) !== ns)
      ) {
        throw new TrestleError(
          `A forward cannot be renamed or moved ('${name}' in ${ns ? `namespace '${ns}'` : "the default namespace"}); remove it and add it anew`,
          Code.InvalidArgument,
        );
      }
      const next = unregistered(
        { ...forward, namespace: ns, ...(current.forward.id ? { id: current.forward.id } : {}) },
        "connecting",
      );
      let opened: UpstreamCatalogWatch;
      try {
        opened = await connect(next);
      } catch (error) {
        const failure = TrestleError.from(error);
        throw new TrestleError(
          `The forward '${name}' was not changed: ${failure.rawMessage}`,
          failure.code === Code.Unknown ? Code.Unavailable : failure.code,
        );
      }
      // The new entry answers before the change is saved, so that hearing its own change does not start another.
      register(next);
      try {
        next.forward = await catalog.updateForward(ns, name, (stored) => ({
          ...next.forward,
          id: stored.id,
        }));
      } catch (error) {
        register(current);
        next.stopped = true;
        next.watch = undefined;
        await opened.close().catch(() => undefined);
        throw error;
      }
      await untrack(current, false);
      await importNow(next, opened.catalog);
      return view(next);
    },

    async remove(namespace, name) {
      const ns = normalizeNamespace(namespace);
      const entry = live.get(keyOf(ns, name));
      const stored = catalog.getForward(ns, name);
      if (!entry && !stored) requireLive(ns, name);
      const shown = entry ? view(entry) : undefined;
      if (entry) await untrack(entry);
      // The forward goes first, so that no replica still following it imports again what is removed next.
      const removed = await catalog.removeForward(ns, name);
      await removeImported(catalog, ns, forwardServiceName(ns, name));
      return (
        shown ?? {
          ...(removed.id ? { id: removed.id } : {}),
          name,
          namespace: ns,
          service: forwardServiceName(ns, name),
          upstream: publicUpstream(removed.upstream),
          status: emptyStatus("failed"),
        }
      );
    },

    async refresh(namespace, name) {
      const entry = requireLive(namespace, name);
      if (!entry.watch) {
        clearTimeout(entry.retryTimer);
        entry.retryTimer = undefined;
        entry.retryDelayMs = FIRST_RETRY_MS;
        try {
          await connect(entry);
        } catch (error) {
          const failure = TrestleError.from(error);
          entry.status = { ...entry.status, state: "failed", error: failure.rawMessage };
          follow(entry);
          throw failure;
        }
      }
      const opened = entry.watch as UpstreamCatalogWatch;
      const upstream = await opened.refresh();
      await importNow(entry, upstream);
      return view(entry);
    },

    list(namespace) {
      const ns = namespace === "*" ? undefined : normalizeNamespace(namespace);
      return [...live.values()]
        .filter((e) => ns === undefined || e.namespace === ns)
        .sort(
          (a, b) => a.namespace.localeCompare(b.namespace) || a.forward.name.localeCompare(b.forward.name),
        )
        .map(view);
    },

    get(namespace, name) {
      const entry = live.get(keyOf(normalizeNamespace(namespace), name));
      return entry ? view(entry) : undefined;
    },

    upstreamFor(target) {
      return byService.get(target.serviceName)?.forward.upstream;
    },

    resolver(base) {
      const resolver = Object.create(base) as typeof base;
      resolver.resolve = async (serviceName, serviceType) => {
        const entry = byService.get(serviceName);
        return entry ? forwardTarget(entry.forward) : base.resolve(serviceName, serviceType);
      };
      return resolver;
    },

    isForwarded: (serviceName) => byService.has(serviceName),

    capabilitiesOf(namespace) {
      const out: { forward: string; capabilities: ServerCapabilities }[] = [];
      for (const entry of live.values()) {
        if (entry.namespace !== namespace) continue;
        const known = entry.watch?.catalog.capabilities;
        if (known) out.push({ forward: entry.forward.name, capabilities: known });
      }
      return out;
    },

    async getPrompt(prompt, args, callOptions = {}) {
      const entry = prompt.type ? byService.get(prompt.type) : undefined;
      if (!entry) {
        throw new TrestleError(`The prompt '${prompt.name}' belongs to no forward`, Code.NotFound);
      }
      const opened = entry.watch;
      if (!opened) {
        throw new TrestleError(
          `The MCP server ${describeUpstream(entry.forward.upstream)} behind forward '${entry.forward.name}' is not connected${entry.status.error ? `: ${entry.status.error}` : ""}`,
          Code.Unavailable,
        );
      }
      const upstreamPrompt = opened.catalog.prompts.find(
        (p) => importedName(entry.forward.prefix, p.name) === prompt.name,
      );
      if (!upstreamPrompt) {
        throw new TrestleError(
          `The forward '${entry.forward.name}' no longer offers the prompt '${prompt.name}'`,
          Code.NotFound,
        );
      }
      return opened.getPrompt(upstreamPrompt.name, args, callOptions);
    },

    async close() {
      closed = true;
      unsubscribe?.();
      await Promise.all([...live.values()].map((entry) => untrack(entry)));
    },
  };
}
