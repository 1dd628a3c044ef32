import { Code, TrestleError } from "@trestle/core";
import type { ForwardReference } from "@trestle/core/catalog";
import { type Catalog, normalizeNamespace, parseForward } from "@trestle/registry";
import { removeImported } from "./catalog-sync.js";
import type { ForwardDirectory, LiveForward } from "./forward-directory.js";
import { forwardServiceName, publicUpstream } from "./forward-identity.js";
import type { ForwardSupervisor } from "./forward-supervisor.js";
import { emptyStatus, type ForwardView } from "./forward-view.js";
import type { UpstreamCatalogWatch } from "./upstream-connector.js";

/** Collaborators of {@link createForwardService}. */
export interface ForwardServiceOptions {
  catalog: Catalog;
  directory: ForwardDirectory;
  supervisor: ForwardSupervisor;
}

/**
 * Adds, changes, removes and lists forwards: existing MCP servers whose catalogs are imported into namespaces.
 * Each method takes a forward in its one canonical shape (`upstream` an object; the management API expands the
 * short ways of writing one before it calls), validated again here.
 */
export interface ForwardService {
  /**
   * Connects to the upstream, saves the forward, imports its catalog and returns it. Nothing is saved when the
   * upstream cannot be started, reached or listed: the error says why in one sentence.
   * @throws TrestleError `InvalidArgument`, `NotFound` (namespace), `AlreadyExists`, or the upstream's failure.
   */
  add(forward: ForwardReference): Promise<ForwardView>;
  /**
   * Replaces a forward's upstream, prefix, description, labels or timeouts: connects to the new upstream first
   * (nothing changes when that fails), then saves and imports again; entries the new import no longer holds are
   * removed.
   * @throws TrestleError `InvalidArgument` (also for a changed name or namespace), `NotFound`, the upstream's failure.
   */
  update(namespace: string, name: string, forward: ForwardReference): Promise<ForwardView>;
  /** Removes a forward and every entry it imported. @throws TrestleError `NotFound`. */
  remove(namespace: string, name: string): Promise<ForwardView>;
  /** Lists the upstream's catalog again and re-imports it. @throws TrestleError `NotFound`, the upstream's failure. */
  refresh(namespace: string, name: string): Promise<ForwardView>;
  /** The forwards of a namespace, or of every namespace with `"*"`. */
  list(namespace: string): ForwardView[];
  get(namespace: string, name: string): ForwardView | undefined;
}

const where = (namespace: string) => (namespace ? `namespace '${namespace}'` : "the default namespace");

function view(entry: LiveForward): ForwardView {
  const f = entry.forward;
  return {
    ...(f.id ? { id: f.id } : {}),
    name: f.name,
    namespace: entry.namespace,
    ...(f.description ? { description: f.description } : {}),
    ...(f.prefix ? { prefix: f.prefix } : {}),
    ...(f.labels ? { labels: { ...f.labels } } : {}),
    ...(f.startTimeoutMs !== undefined ? { startTimeoutMs: f.startTimeoutMs } : {}),
    ...(f.handshakeTimeoutMs !== undefined ? { handshakeTimeoutMs: f.handshakeTimeoutMs } : {}),
    service: entry.service,
    upstream: publicUpstream(f.upstream),
    status: structuredClone(entry.status),
  };
}

/** The upstream's failure as the reason a change was not made. */
function notDone(what: string, error: unknown): TrestleError {
  const failure = TrestleError.from(error);
  return new TrestleError(
    `${what}: ${failure.rawMessage}`,
    failure.code === Code.Unknown ? Code.Unavailable : failure.code,
  );
}

/** Creates the {@link ForwardService}. */
export function createForwardService(options: ForwardServiceOptions): ForwardService {
  const { catalog, directory, supervisor } = options;

  function requireLive(namespace: string, name: string): LiveForward {
    const entry = directory.get(namespace, name);
    if (!entry) {
      throw new TrestleError(`No forward named '${name}' exists in ${where(namespace)}`, Code.NotFound);
    }
    return entry;
  }

  return {
    async add(input) {
      const forward = parseForward(input);
      const namespace = normalizeNamespace(forward.namespace);
      if (!catalog.getNamespace(namespace)) {
        throw new TrestleError(`Namespace '${namespace}' does not exist`, Code.NotFound);
      }
      if (directory.get(namespace, forward.name) || catalog.getForward(namespace, forward.name)) {
        throw new TrestleError(
          `A forward named '${forward.name}' already exists in ${where(namespace)}`,
          Code.AlreadyExists,
        );
      }
      const entry = supervisor.entryFor({ ...forward, namespace }, "connecting");
      directory.register(entry);
      let opened: UpstreamCatalogWatch;
      try {
        opened = await supervisor.connect(entry);
      } catch (error) {
        await supervisor.untrack(entry);
        throw notDone(`The forward '${forward.name}' was not added`, error);
      }
      try {
        entry.forward = await catalog.addForward({ ...forward, namespace });
      } catch (error) {
        await supervisor.untrack(entry);
        throw error;
      }
      await supervisor.importNow(entry, opened.catalog);
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
          `A forward cannot be renamed or moved ('${name}' in ${where(ns)}); remove it and add it anew`,
          Code.InvalidArgument,
        );
      }
      const next = supervisor.entryFor(
        { ...forward, namespace: ns, ...(current.forward.id ? { id: current.forward.id } : {}) },
        "connecting",
      );
      let opened: UpstreamCatalogWatch;
      try {
        opened = await supervisor.connect(next);
      } catch (error) {
        throw notDone(`The forward '${name}' was not changed`, error);
      }
      // The new entry answers before the change is saved, so that hearing its own change does not start another.
      directory.register(next);
      try {
        next.forward = await catalog.updateForward(ns, name, (stored) => ({
          ...next.forward,
          id: stored.id,
        }));
      } catch (error) {
        directory.register(current);
        next.stopped = true;
        next.watch = undefined;
        await opened.close().catch(() => undefined);
        throw error;
      }
      await supervisor.untrack(current, false);
      await supervisor.importNow(next, opened.catalog);
      return view(next);
    },

    async remove(namespace, name) {
      const ns = normalizeNamespace(namespace);
      const entry = directory.get(ns, name);
      const stored = catalog.getForward(ns, name);
      if (!entry && !stored) requireLive(ns, name);
      const shown = entry ? view(entry) : undefined;
      if (entry) await supervisor.untrack(entry);
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
      const entry = requireLive(normalizeNamespace(namespace), name);
      const opened = entry.watch ?? (await supervisor.reconnect(entry));
      const upstream = await opened.refresh();
      await supervisor.importNow(entry, upstream);
      return view(entry);
    },

    list(namespace) {
      const ns = namespace === "*" ? undefined : normalizeNamespace(namespace);
      return [...directory.entries()]
        .filter((e) => ns === undefined || e.namespace === ns)
        .sort(
          (a, b) => a.namespace.localeCompare(b.namespace) || a.forward.name.localeCompare(b.forward.name),
        )
        .map(view);
    },

    get(namespace, name) {
      const entry = directory.get(namespace, name);
      return entry ? view(entry) : undefined;
    },
  };
}
