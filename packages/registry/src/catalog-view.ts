import type { Namespace } from "@trestle/core/catalog";
import { deepFreeze } from "./deep-freeze.js";
import type { EntryKind, StoredEntry, StoredNamespace, StoreSnapshot } from "./store.js";

/** Where a change to the in-memory view came from. */
export type ChangeOrigin = "local" | "feed" | "resync";

/**
 * A change to the catalog as this process sees it: fired once per process for every write, whether this
 * process or another replica made it.
 */
export interface CatalogChange {
  kind: EntryKind | "namespace";
  op: "added" | "updated" | "removed";
  /** The namespace of the entry, or the namespace itself ("" for the default). */
  namespace: string;
  /** A tool's or prompt's name, a resource's location, a namespace's name. */
  key: string;
  id: string;
  version: number;
  /**
   * How this process learned of it: `local` straight after its own write; `feed` from the change feed (a
   * write of another replica, or this process's own when its notification came first); `resync` when
   * reloading everything.
   */
  origin: ChangeOrigin;
}

/** One entry in the view: the stored row and the frozen reference handed to readers. */
export interface ViewEntry {
  stored: StoredEntry;
  value: unknown;
}

interface ViewNamespace {
  stored: StoredNamespace;
  value: Namespace;
}

const KINDS: readonly EntryKind[] = ["tool", "resource", "prompt", "forward"];

function namespaceValue(stored: StoredNamespace): Namespace {
  return deepFreeze({ id: stored.id, name: stored.name, ...stored.document } as Namespace);
}

/**
 * The catalog in memory: maps by namespace and key (and name), so reads on the call path are O(1), and
 * listing a namespace is O(entries in it), cached until the namespace changes.
 */
export interface CatalogView {
  getEntry(kind: EntryKind, namespace: string, key: string): ViewEntry | undefined;
  getEntryByName(kind: EntryKind, namespace: string, name: string): ViewEntry | undefined;
  /** The values of a namespace's entries, sorted by key; the same array until the namespace changes. */
  listValues(kind: EntryKind, namespace: string): readonly unknown[];
  getNamespace(name: string): Namespace | undefined;
  listNamespaces(): Namespace[];
  /** Applies a stored entry when it is newer than what the view holds. */
  applyEntry(stored: StoredEntry, origin: ChangeOrigin): CatalogChange | undefined;
  /** Removes the entry with this id at this key, unless the view holds a newer one there. */
  removeEntry(
    kind: EntryKind,
    namespace: string,
    key: string,
    id: string,
    version: number,
    origin: ChangeOrigin,
  ): CatalogChange | undefined;
  /**
   * Applies a namespace read from the store. One with another id than the namespace held under its name replaces
   * it: the one held is removed first (with its entries), as if its deletion had been seen, so that listeners
   * end what belonged to it even when the feed showed the replacement before the deletion.
   */
  applyNamespace(stored: StoredNamespace, origin: ChangeOrigin): CatalogChange[];
  removeNamespace(name: string, id: string, version: number, origin: ChangeOrigin): CatalogChange[];
  /** Replaces everything with a snapshot and returns what differs. */
  replaceAll(snapshot: StoreSnapshot): CatalogChange[];
  /** How many entries of `kind` the view holds in all namespaces. */
  size(kind: EntryKind): number;
}

/** Creates an empty {@link CatalogView}. */
export function createCatalogView(): CatalogView {
  const namespaces = new Map<string, ViewNamespace>();
  const entries = new Map<EntryKind, Map<string, Map<string, ViewEntry>>>(KINDS.map((k) => [k, new Map()]));
  const names = new Map<EntryKind, Map<string, Map<string, string>>>(KINDS.map((k) => [k, new Map()]));
  const listCache = new Map<string, readonly unknown[]>();
  let namespaceList: Namespace[] | undefined;

  const bucket = <V>(
    byKind: Map<EntryKind, Map<string, Map<string, V>>>,
    kind: EntryKind,
    namespace: string,
  ) => {
    const byNamespace = byKind.get(kind) as Map<string, Map<string, V>>;
    let map = byNamespace.get(namespace);
    if (!map) {
      map = new Map();
      byNamespace.set(namespace, map);
    }
    return map;
  };
  const cacheKey = (kind: EntryKind, namespace: string) => `${kind}\u0000${namespace}`;

  function put(stored: StoredEntry): void {
    const map = bucket(entries, stored.kind, stored.namespace);
    const previous = map.get(stored.key);
    const nameIndex = bucket(names, stored.kind, stored.namespace);
    if (previous && previous.stored.name !== stored.name) nameIndex.delete(previous.stored.name);
    map.set(stored.key, { stored, value: deepFreeze({ ...stored.document }) });
    nameIndex.set(stored.name, stored.key);
    listCache.delete(cacheKey(stored.kind, stored.namespace));
  }

  function drop(kind: EntryKind, namespace: string, key: string): ViewEntry | undefined {
    const map = entries.get(kind)?.get(namespace);
    const previous = map?.get(key);
    if (!map || !previous) return undefined;
    map.delete(key);
    names.get(kind)?.get(namespace)?.delete(previous.stored.name);
    listCache.delete(cacheKey(kind, namespace));
    return previous;
  }

  function entryChange(
    stored: StoredEntry,
    op: CatalogChange["op"],
    origin: ChangeOrigin,
    version = stored.version,
  ): CatalogChange {
    return {
      kind: stored.kind,
      op,
      namespace: stored.namespace,
      key: stored.key,
      id: stored.id,
      version,
      origin,
    };
  }

  function namespaceChange(
    stored: StoredNamespace,
    op: CatalogChange["op"],
    origin: ChangeOrigin,
    version = stored.version,
  ): CatalogChange {
    return {
      kind: "namespace",
      op,
      namespace: stored.name,
      key: stored.name,
      id: stored.id,
      version,
      origin,
    };
  }

  const view: CatalogView = {
    getEntry(kind, namespace, key) {
      return entries.get(kind)?.get(namespace)?.get(key);
    },
    getEntryByName(kind, namespace, name) {
      const key = names.get(kind)?.get(namespace)?.get(name);
      return key === undefined ? undefined : entries.get(kind)?.get(namespace)?.get(key);
    },
    listValues(kind, namespace) {
      const key = cacheKey(kind, namespace);
      let list = listCache.get(key);
      if (!list) {
        const map = entries.get(kind)?.get(namespace);
        list = Object.freeze(
          map
            ? [...map.values()].sort((a, b) => (a.stored.key < b.stored.key ? -1 : 1)).map((e) => e.value)
            : [],
        );
        listCache.set(key, list);
      }
      return list;
    },
    getNamespace(name) {
      return namespaces.get(name)?.value;
    },
    listNamespaces() {
      namespaceList ??= [...namespaces.values()]
        .sort((a, b) => (a.stored.name < b.stored.name ? -1 : 1))
        .map((n) => n.value);
      return [...namespaceList];
    },
    applyEntry(stored, origin) {
      const previous = entries.get(stored.kind)?.get(stored.namespace)?.get(stored.key);
      if (previous && previous.stored.version >= stored.version) return undefined;
      put(stored);
      return entryChange(stored, previous ? "updated" : "added", origin);
    },
    removeEntry(kind, namespace, key, id, version, origin) {
      const previous = entries.get(kind)?.get(namespace)?.get(key);
      if (!previous || previous.stored.id !== id || previous.stored.version > version) return undefined;
      drop(kind, namespace, key);
      return entryChange(previous.stored, "removed", origin, version);
    },
    applyNamespace(stored, origin) {
      const previous = namespaces.get(stored.name);
      if (previous && previous.stored.version >= stored.version) return [];
      const updated = previous?.stored.id === stored.id;
      const removed =
        previous && !updated
          ? view.removeNamespace(stored.name, previous.stored.id, stored.version, origin)
          : [];
      namespaces.set(stored.name, { stored, value: namespaceValue(stored) });
      namespaceList = undefined;
      return [...removed, namespaceChange(stored, updated ? "updated" : "added", origin)];
    },
    removeNamespace(name, id, version, origin) {
      const previous = namespaces.get(name);
      if (!previous || previous.stored.id !== id || previous.stored.version > version) return [];
      const changes: CatalogChange[] = [];
      for (const kind of KINDS) {
        const map = entries.get(kind)?.get(name);
        for (const entry of [...(map?.values() ?? [])]) {
          drop(kind, name, entry.stored.key);
          changes.push(entryChange(entry.stored, "removed", origin, version));
        }
        entries.get(kind)?.delete(name);
        names.get(kind)?.delete(name);
      }
      namespaces.delete(name);
      namespaceList = undefined;
      changes.push(namespaceChange(previous.stored, "removed", origin, version));
      return changes;
    },
    replaceAll(snapshot) {
      const changes: CatalogChange[] = [];
      const nextNamespaces = new Map(snapshot.namespaces.map((n) => [n.name, n]));
      const nextEntries = new Map(
        snapshot.entries.map((e) => [`${e.kind}\u0000${e.namespace}\u0000${e.key}`, e]),
      );
      // Entries first, then namespaces, so a listener never sees an entry in a namespace that is gone.
      for (const kind of KINDS) {
        for (const [namespace, map] of entries.get(kind) ?? []) {
          for (const entry of [...map.values()]) {
            const next = nextEntries.get(`${kind}\u0000${namespace}\u0000${entry.stored.key}`);
            if (!next || next.id !== entry.stored.id) {
              drop(kind, namespace, entry.stored.key);
              changes.push(entryChange(entry.stored, "removed", "resync"));
            }
          }
        }
      }
      for (const [name, existing] of [...namespaces]) {
        const next = nextNamespaces.get(name);
        if (!next || next.id !== existing.stored.id) {
          changes.push(...view.removeNamespace(name, existing.stored.id, existing.stored.version, "resync"));
        }
      }
      for (const stored of snapshot.namespaces) {
        changes.push(...view.applyNamespace(stored, "resync"));
      }
      for (const stored of snapshot.entries) {
        const previous = entries.get(stored.kind)?.get(stored.namespace)?.get(stored.key);
        if (previous && previous.stored.version === stored.version) continue;
        put(stored);
        changes.push(entryChange(stored, previous ? "updated" : "added", "resync"));
      }
      return changes;
    },
    size(kind) {
      let n = 0;
      for (const map of entries.get(kind)?.values() ?? []) n += map.size;
      return n;
    },
  };
  return view;
}
