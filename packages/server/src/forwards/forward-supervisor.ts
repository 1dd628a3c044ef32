import type { ServerCapabilities } from "@modelcontextprotocol/sdk/types.js";
import { Code, type ServiceTarget, TrestleError } from "@trestle/core";
import { describeForwardUpstream, type ForwardReference } from "@trestle/core/catalog";
import { type Catalog, type CatalogChange, normalizeNamespace } from "@trestle/registry";
import type { Logger } from "pino";
import { canonicalJson } from "../canonical-json.js";
import { planImport } from "./catalog-import.js";
import { type SyncResult, syncImport } from "./catalog-sync.js";
import { connectionUpstream } from "./forward-credentials.js";
import type { ForwardDirectory, LiveForward } from "./forward-directory.js";
import { forwardServiceName, forwardTarget } from "./forward-identity.js";
import { emptyStatus, type ForwardState } from "./forward-view.js";
import type { UpstreamCatalog, UpstreamCatalogWatch, UpstreamConnector } from "./upstream-connector.js";

/** Options for {@link createForwardSupervisor}. */
export interface ForwardSupervisorOptions {
  catalog: Catalog;
  directory: ForwardDirectory;
  logger: Logger;
  /** Deadline of one listing of an upstream's catalog, on a connection already open. */
  catalogTimeoutMs: number;
  /** Called when a forward goes away or changes upstream, so the transport ends what it runs for it. */
  onReleased?(target: ServiceTarget): void;
  /** How upstreams are watched and their tools addressed: the MCP transport's, given by the composition root. */
  upstreams: UpstreamConnector;
}

/**
 * Keeps one catalog watch per forward (its own connection, so the upstream's `list_changed` re-imports at once),
 * reconnects with back-off, imports each catalog the watch reports, and follows forwards added or removed on any
 * replica through the catalog's change feed. It fills the {@link ForwardDirectory}; the forward service drives it
 * for the management API's changes.
 */
export interface ForwardSupervisor {
  /** Follows every forward the catalog holds, and the catalog's changes. */
  start(): void;
  /** A new entry for `forward`, not yet in the directory. */
  entryFor(forward: ForwardReference, state: ForwardState): LiveForward;
  /**
   * Opens the entry's watch (its first connection has the forward's start timeout) and keeps it on the entry.
   * @throws TrestleError the upstream's failure; `Aborted` when the entry stopped meanwhile.
   */
  connect(entry: LiveForward): Promise<UpstreamCatalogWatch>;
  /**
   * Connects a forward that has no watch now, instead of at its next retry; when that fails, the retries go on
   * from the first delay.
   * @throws TrestleError the upstream's failure.
   */
  reconnect(entry: LiveForward): Promise<UpstreamCatalogWatch>;
  /** Connects in the background; on failure, tries again with back-off until the entry stops. */
  follow(entry: LiveForward): void;
  /**
   * Imports `upstream` into the entry's namespace now, retrying writes that raced another replica's import.
   * @throws TrestleError the import's failure (also kept in the entry's status).
   */
  importNow(entry: LiveForward, upstream: UpstreamCatalog): Promise<void>;
  /**
   * Stops following an entry. `release` ends the transport's processes for it too; a forward whose upstream
   * changed does not need that (the transport starts the new upstream apart and ends the old one's processes
   * when their calls are done).
   */
  untrack(entry: LiveForward, release?: boolean): Promise<void>;
  /** Stops every watch (ending their processes). */
  close(): Promise<void>;
}

const FIRST_RETRY_MS = 1_000;
const MAX_IMPORT_ATTEMPTS = 5;
const MAX_RETRY_MS = 60_000;
/** How often a forward still starting is reported (a first `npx -y` may download for a minute). */
const START_PROGRESS_INTERVAL_MS = 3_000;

const identityOf = (forward: ForwardReference) => canonicalJson([forward.upstream, forward.prefix ?? ""]);

function advertised(capabilities: ServerCapabilities): string[] {
  return Object.keys(capabilities)
    .filter((k) => capabilities[k as keyof ServerCapabilities] !== undefined)
    .sort();
}

/** Creates the {@link ForwardSupervisor}. */
export function createForwardSupervisor(options: ForwardSupervisorOptions): ForwardSupervisor {
  const { catalog, directory, logger } = options;
  const { upstreams } = options;
  let unsubscribe: (() => void) | undefined;
  let closed = false;

  function logContext(entry: LiveForward) {
    return {
      namespace: entry.namespace,
      forward: entry.forward.name,
      upstream: describeForwardUpstream(entry.forward.upstream),
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
    const plan = planImport(
      entry.forward,
      upstream,
      {
        tools: catalog.listTools(entry.namespace),
        resources: catalog.listResources(entry.namespace),
        prompts: catalog.listPrompts(entry.namespace),
      },
      upstreams.toolUri,
    );
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
   * Another replica importing the same upstream at the same moment makes a write collide (`AlreadyExists`,
   * `Aborted`, `NotFound`): the view catches up and the import runs again, finding less or nothing to write.
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

  /**
   * Says, every few seconds until `stop` is called, that the forward's MCP server has not answered yet: which
   * forward, for how long, and the setting that bounds the wait, so a terminal is not silent meanwhile.
   */
  function reportWaiting(entry: LiveForward, timeoutMs: number): () => void {
    const started = Date.now();
    const timer = setInterval(() => {
      const seconds = Math.round((Date.now() - started) / 1000);
      logger.info(
        { ...logContext(entry), elapsedMs: Date.now() - started, timeoutMs },
        `waiting for forward '${entry.forward.name}' to complete the MCP handshake (${seconds} s so far, up to ${Math.round(timeoutMs / 1000)} s: the forward's startTimeoutMs, else forwardStartTimeoutMs)`,
      );
    }, START_PROGRESS_INTERVAL_MS);
    timer.unref();
    return () => clearInterval(timer);
  }

  async function connect(entry: LiveForward): Promise<UpstreamCatalogWatch> {
    const timeouts = directory.timeoutsOf(entry.forward);
    const stopReporting = reportWaiting(entry, timeouts.startTimeoutMs);
    const opened = await upstreams
      .watch(connectionUpstream(entry.forward.upstream), {
        service: entry.service,
        ...timeouts,
        timeoutMs: options.catalogTimeoutMs,
        onChange(upstream) {
          if (entry.watch === opened) reimport(entry, upstream);
        },
        onError(error) {
          if (entry.watch !== opened || entry.stopped) return;
          entry.status = { ...entry.status, state: "reconnecting", error: error.rawMessage };
          logger.warn(
            { ...logContext(entry), err: error.rawMessage },
            "forward upstream failed; reconnecting",
          );
        },
      })
      .finally(stopReporting);
    if (entry.stopped) {
      await opened.close();
      throw new TrestleError(`The forward '${entry.forward.name}' was removed meanwhile`, Code.Aborted);
    }
    entry.watch = opened;
    return opened;
  }

  function follow(entry: LiveForward): void {
    clearTimeout(entry.retryTimer);
    entry.retryTimer = undefined;
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

  function entryFor(forward: ForwardReference, state: ForwardState): LiveForward {
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

  async function untrack(entry: LiveForward, release = true): Promise<void> {
    entry.stopped = true;
    clearTimeout(entry.retryTimer);
    directory.unregister(entry);
    const opened = entry.watch;
    entry.watch = undefined;
    await opened?.close().catch(() => undefined);
    if (release) options.onReleased?.(forwardTarget(entry.forward));
  }

  function followNew(forward: ForwardReference): void {
    const entry = entryFor(forward, "connecting");
    directory.register(entry);
    follow(entry);
  }

  function onCatalogChange(change: CatalogChange): void {
    if (closed || change.kind !== "forward") return;
    const current = directory.get(change.namespace, change.key);
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
    followNew(forward);
  }

  return {
    start() {
      if (unsubscribe || closed) return;
      unsubscribe = catalog.onChange(onCatalogChange);
      for (const forward of catalog.listForwards("*")) {
        if (!directory.get(forward.namespace ?? "", forward.name)) followNew(forward);
      }
    },
    entryFor,
    connect,
    async reconnect(entry) {
      clearTimeout(entry.retryTimer);
      entry.retryTimer = undefined;
      entry.retryDelayMs = FIRST_RETRY_MS;
      try {
        return await connect(entry);
      } catch (error) {
        const failure = TrestleError.from(error);
        entry.status = { ...entry.status, state: "failed", error: failure.rawMessage };
        follow(entry);
        throw failure;
      }
    },
    follow,
    importNow,
    untrack,
    async close() {
      closed = true;
      unsubscribe?.();
      await Promise.all([...directory.entries()].map((entry) => untrack(entry)));
    },
  };
}
