import { randomUUID } from "node:crypto";
import {
  Code,
  type PromptReference,
  type ResourceReference,
  type ToolReference,
  TrestleError,
} from "@trestle/core";
import type { ForwardReference, Labels, Namespace } from "@trestle/core/catalog";
import { parseForward, parseNamespace, parsePrompt, parseResource, parseTool } from "./catalog-schemas.js";
import type { CatalogChange, CatalogView } from "./catalog-view.js";
import type { Clock } from "./clock.js";
import { type LabelExpression, matchesLabels, toLabelExpression } from "./label-expression.js";
import {
  DEFAULT_NAMESPACE,
  describeNamespace,
  isNamespaceName,
  normalizeNamespace,
} from "./namespace-name.js";
import type { EntryKind, Store, StoredEntry } from "./store.js";
import type { ViewSync } from "./view-sync.js";

/**
 * A function from an entry's current value to its new one, run under a row lock. (An update method also takes the
 * new value itself, as `unknown`: it is validated like an added entry.)
 */
export type EntryUpdate<T> = (current: T) => T;

/** Options of the catalog's update methods. */
export interface UpdateOptions {
  /** Fail with `Aborted` unless the entry still has this version (see {@link Catalog.versionOf}). */
  expectedVersion?: number;
}

/** Options of {@link Catalog.deleteNamespace}. */
export interface DeleteNamespaceOptions {
  /** Delete the namespace's tools, resources and prompts with it (otherwise a non-empty one is refused). */
  cascade?: boolean;
}

/**
 * Tools, resources and prompts by namespace. Reads come from memory and never touch the database: `get*` in
 * O(1), `list*` in O(entries of the namespace). Writes are validated, run in one transaction, and publish a
 * {@link CatalogChange} to this process and to every replica on the same database.
 *
 * Namespace "" (or `undefined`) is the default namespace. Returned references are frozen: copy before
 * changing. Write methods take `unknown`: what a client sent goes in as it is, is validated here (the registry's
 * schemas), and comes back typed. Writes reject with a `TrestleError`: `InvalidArgument` (bad input, with every bad field named),
 * `AlreadyExists` (name taken in the namespace), `NotFound` (no such entry or namespace), `Aborted` (an
 * `expectedVersion` did not match), `FailedPrecondition` (namespace not empty, default namespace).
 */
export interface Catalog {
  /**
   * The tools of a namespace, sorted by name; only those whose labels match `filter` when given.
   * @throws TrestleError `InvalidArgument` (bad namespace name or filter), `NotFound` (no such namespace).
   */
  listTools(namespace?: string, filter?: LabelExpression | string): readonly ToolReference[];
  /** A tool by name, or `undefined` (also for an unknown namespace). */
  getTool(namespace: string | undefined, name: string): ToolReference | undefined;
  /** Validates a tool and adds it to its `namespace`; assigns an `id` when it has none. */
  addTool(tool: unknown): Promise<ToolReference>;
  /** Updates a tool with a function of its current value. */
  updateTool(
    namespace: string | undefined,
    name: string,
    update: EntryUpdate<ToolReference>,
    options?: UpdateOptions,
  ): Promise<ToolReference>;
  /** Replaces a tool (same name and namespace) with a new value, validated. */
  updateTool(
    namespace: string | undefined,
    name: string,
    replacement: unknown,
    options?: UpdateOptions,
  ): Promise<ToolReference>;
  /** Removes a tool and returns it. */
  removeTool(namespace: string | undefined, name: string): Promise<ToolReference>;
  /** Removes the tools of a namespace whose labels match `filter`, and returns them. */
  removeTools(namespace: string | undefined, filter: LabelExpression | string): Promise<ToolReference[]>;

  /** The resources of a namespace, sorted by location. Throws as {@link Catalog.listTools}. */
  listResources(namespace?: string, filter?: LabelExpression | string): readonly ResourceReference[];
  /** A resource by location (its MCP URI), or `undefined`. */
  getResource(namespace: string | undefined, location: string): ResourceReference | undefined;
  /** A resource by name (names are unique in a namespace too), or `undefined`. */
  getResourceByName(namespace: string | undefined, name: string): ResourceReference | undefined;
  /** Validates a resource and adds it. */
  addResource(resource: unknown): Promise<ResourceReference>;
  /** Updates a resource with a function of its current value. */
  updateResource(
    namespace: string | undefined,
    location: string,
    update: EntryUpdate<ResourceReference>,
    options?: UpdateOptions,
  ): Promise<ResourceReference>;
  /** Replaces a resource (same location and namespace) with a new value, validated. */
  updateResource(
    namespace: string | undefined,
    location: string,
    replacement: unknown,
    options?: UpdateOptions,
  ): Promise<ResourceReference>;
  removeResource(namespace: string | undefined, location: string): Promise<ResourceReference>;
  removeResources(
    namespace: string | undefined,
    filter: LabelExpression | string,
  ): Promise<ResourceReference[]>;

  /** The prompts of a namespace, sorted by name. Throws as {@link Catalog.listTools}. */
  listPrompts(namespace?: string, filter?: LabelExpression | string): readonly PromptReference[];
  getPrompt(namespace: string | undefined, name: string): PromptReference | undefined;
  /** Validates a prompt and adds it. */
  addPrompt(prompt: unknown): Promise<PromptReference>;
  /** Updates a prompt with a function of its current value. */
  updatePrompt(
    namespace: string | undefined,
    name: string,
    update: EntryUpdate<PromptReference>,
    options?: UpdateOptions,
  ): Promise<PromptReference>;
  /** Replaces a prompt (same name and namespace) with a new value, validated. */
  updatePrompt(
    namespace: string | undefined,
    name: string,
    replacement: unknown,
    options?: UpdateOptions,
  ): Promise<PromptReference>;
  removePrompt(namespace: string | undefined, name: string): Promise<PromptReference>;
  removePrompts(namespace: string | undefined, filter: LabelExpression | string): Promise<PromptReference[]>;

  /**
   * The forwards of a namespace (MCP servers whose catalogs are imported into it), sorted by name; every
   * namespace's when `namespace` is `"*"`. Throws as {@link Catalog.listTools}.
   */
  listForwards(namespace?: string, filter?: LabelExpression | string): readonly ForwardReference[];
  getForward(namespace: string | undefined, name: string): ForwardReference | undefined;
  /** Validates a forward (its upstream as an object) and adds it. */
  addForward(forward: unknown): Promise<ForwardReference>;
  /** Updates a forward with a function of its current value. */
  updateForward(
    namespace: string | undefined,
    name: string,
    update: EntryUpdate<ForwardReference>,
    options?: UpdateOptions,
  ): Promise<ForwardReference>;
  /** Replaces a forward (same name and namespace) with a new value, validated. */
  updateForward(
    namespace: string | undefined,
    name: string,
    replacement: unknown,
    options?: UpdateOptions,
  ): Promise<ForwardReference>;
  removeForward(namespace: string | undefined, name: string): Promise<ForwardReference>;

  /** Every namespace, the default one ("") first. */
  listNamespaces(): Namespace[];
  /** A namespace by name ("" for the default one), or `undefined`. */
  getNamespace(name: string): Namespace | undefined;
  /** Creates a namespace (a DNS label name). @throws `AlreadyExists`, `InvalidArgument`. */
  createNamespace(namespace: unknown): Promise<Namespace>;
  /** Deletes a namespace. @throws `NotFound`; `FailedPrecondition` for "" or a non-empty one without cascade. */
  deleteNamespace(name: string, options?: DeleteNamespaceOptions): Promise<Namespace>;

  /** The version of an entry (a tool's or prompt's name, a resource's location), for `expectedVersion`. */
  versionOf(kind: EntryKind, namespace: string | undefined, key: string): number | undefined;
  /** How many entries of `kind` the catalog holds, in all namespaces. */
  count(kind: EntryKind): number;
  /**
   * Calls `listener` after every change, from this process or another replica, once each.
   * @returns a function that unsubscribes.
   */
  onChange(listener: (change: CatalogChange) => void): () => void;
}

interface EntrySpec<T> {
  kind: EntryKind;
  parse(input: unknown): T;
  key(value: T): string;
  name(value: T): string;
  /** The field that holds the key, for messages. */
  keyField: "name" | "location";
}

const toolSpec: EntrySpec<ToolReference> = {
  kind: "tool",
  parse: parseTool,
  key: (t) => t.name,
  name: (t) => t.name,
  keyField: "name",
};
const resourceSpec: EntrySpec<ResourceReference> = {
  kind: "resource",
  parse: parseResource,
  key: (r) => r.location,
  name: (r) => r.name,
  keyField: "location",
};
const promptSpec: EntrySpec<PromptReference> = {
  kind: "prompt",
  parse: parsePrompt,
  key: (p) => p.name,
  name: (p) => p.name,
  keyField: "name",
};

const forwardSpec: EntrySpec<ForwardReference> = {
  kind: "forward",
  parse: parseForward,
  key: (f) => f.name,
  name: (f) => f.name,
  keyField: "name",
};

/** Options for {@link createCatalog}. */
export interface CatalogOptions {
  store: Store;
  view: CatalogView;
  sync: ViewSync;
  clock: Clock;
  /** Registers a change listener (the registry's fan-out). */
  subscribe(listener: (change: CatalogChange) => void): () => void;
}

/** Namespace names that cannot exist read as "no such entry", never as an error, on the call path. */
function readableNamespace(namespace: string | undefined): string | undefined {
  if (namespace === undefined) return DEFAULT_NAMESPACE;
  return isNamespaceName(namespace) ? namespace : undefined;
}

/** Creates the {@link Catalog} over a loaded view. */
export function createCatalog(options: CatalogOptions): Catalog {
  const { store, view, sync, clock } = options;

  function section<T extends { id?: string; namespace?: string; labels?: Labels }>(spec: EntrySpec<T>) {
    const documentOf = (entry: StoredEntry | undefined) => entry?.document as T | undefined;

    function requireNamespace(namespace: string | undefined): string {
      const name = normalizeNamespace(namespace);
      if (!view.getNamespace(name))
        throw new TrestleError(`Namespace '${name}' does not exist`, Code.NotFound);
      return name;
    }

    /** Validates an entry for `namespace` and `key`, keeping `id`: what an update may and may not change. */
    function prepareUpdate(input: unknown, namespace: string, key: string, current: StoredEntry) {
      const value = spec.parse(input);
      if (spec.key(value) !== key) {
        throw new TrestleError(
          `The ${spec.kind}'s ${spec.keyField} cannot change from '${key}' to '${spec.key(value)}'; remove it and add it anew`,
          Code.InvalidArgument,
        );
      }
      if (value.namespace !== undefined && normalizeNamespace(value.namespace) !== namespace) {
        throw new TrestleError(
          `The ${spec.kind} '${key}' is in ${describeNamespace(namespace)}; it cannot move to ${describeNamespace(normalizeNamespace(value.namespace))}`,
          Code.InvalidArgument,
        );
      }
      if (value.id !== undefined && value.id !== current.id) {
        throw new TrestleError(
          `The ${spec.kind} '${key}' has id '${current.id}'; its id cannot change to '${value.id}'`,
          Code.InvalidArgument,
        );
      }
      const document = { ...value, id: current.id, namespace } as Record<string, unknown>;
      return { name: spec.name(value), document };
    }

    return {
      list(namespace: string | undefined, filter: LabelExpression | string | undefined): readonly T[] {
        const expression = filter === undefined ? undefined : toLabelExpression(filter);
        const name = requireNamespace(namespace);
        const values = view.listValues(spec.kind, name) as readonly T[];
        // The view's array is frozen and stays the same until the namespace changes: callers can cache on it.
        return expression ? values.filter((v) => matchesLabels(expression, v.labels)) : values;
      },
      get(namespace: string | undefined, key: string): T | undefined {
        const name = readableNamespace(namespace);
        return name === undefined ? undefined : (view.getEntry(spec.kind, name, key)?.value as T | undefined);
      },
      getByName(namespace: string | undefined, entryName: string): T | undefined {
        const name = readableNamespace(namespace);
        return name === undefined
          ? undefined
          : (view.getEntryByName(spec.kind, name, entryName)?.value as T | undefined);
      },
      async add(input: unknown): Promise<T> {
        const value = spec.parse(input);
        const namespace = normalizeNamespace(value.namespace);
        const id = value.id ?? randomUUID();
        const document = { ...value, id, namespace } as Record<string, unknown>;
        const stored = await store.insertEntry(
          { kind: spec.kind, namespace, key: spec.key(value), name: spec.name(value), id, document },
          clock.now(),
        );
        await sync.apply(() => ({ catalog: [view.applyEntry(stored, "local")] }));
        return (
          (view.getEntry(spec.kind, namespace, stored.key)?.value as T | undefined) ?? (stored.document as T)
        );
      },
      async update(
        namespace: string | undefined,
        key: string,
        update: unknown,
        updateOptions: UpdateOptions = {},
      ): Promise<T> {
        const name = normalizeNamespace(namespace);
        const stored = await store.updateEntry(
          spec.kind,
          name,
          key,
          (current) => {
            const next =
              typeof update === "function"
                ? (update as EntryUpdate<T>)(structuredClone(documentOf(current) as T))
                : update;
            return prepareUpdate(next, name, key, current);
          },
          {
            now: clock.now(),
            ...(updateOptions.expectedVersion === undefined
              ? {}
              : { expectedVersion: updateOptions.expectedVersion }),
          },
        );
        await sync.apply(() => ({ catalog: [view.applyEntry(stored, "local")] }));
        return (view.getEntry(spec.kind, name, key)?.value as T | undefined) ?? (stored.document as T);
      },
      async remove(namespace: string | undefined, key: string): Promise<T> {
        const name = normalizeNamespace(namespace);
        const removed = await store.deleteEntry(spec.kind, name, key);
        await sync.apply(() => ({
          catalog: [view.removeEntry(spec.kind, name, key, removed.id, removed.version, "local")],
        }));
        return removed.document as T;
      },
      async removeMatching(namespace: string | undefined, filter: LabelExpression | string): Promise<T[]> {
        const expression = toLabelExpression(filter);
        const name = requireNamespace(namespace);
        const removed = await store.deleteEntries(spec.kind, name, (entry) =>
          matchesLabels(expression, (entry.document as T).labels),
        );
        await sync.apply(() => ({
          catalog: removed.map((e) => view.removeEntry(spec.kind, name, e.key, e.id, e.version, "local")),
        }));
        return removed.map((e) => e.document as T);
      },
    };
  }

  const tools = section(toolSpec);
  const resources = section(resourceSpec);
  const prompts = section(promptSpec);
  const forwards = section(forwardSpec);

  return {
    listTools: (namespace, filter) => tools.list(namespace, filter),
    getTool: (namespace, name) => tools.get(namespace, name),
    addTool: (tool) => tools.add(tool),
    updateTool: (namespace: string | undefined, name: string, update: unknown, o?: UpdateOptions) =>
      tools.update(namespace, name, update, o),
    removeTool: (namespace, name) => tools.remove(namespace, name),
    removeTools: (namespace, filter) => tools.removeMatching(namespace, filter),

    listResources: (namespace, filter) => resources.list(namespace, filter),
    getResource: (namespace, location) => resources.get(namespace, location),
    getResourceByName: (namespace, name) => resources.getByName(namespace, name),
    addResource: (resource) => resources.add(resource),
    updateResource: (namespace: string | undefined, location: string, update: unknown, o?: UpdateOptions) =>
      resources.update(namespace, location, update, o),
    removeResource: (namespace, location) => resources.remove(namespace, location),
    removeResources: (namespace, filter) => resources.removeMatching(namespace, filter),

    listPrompts: (namespace, filter) => prompts.list(namespace, filter),
    getPrompt: (namespace, name) => prompts.get(namespace, name),
    addPrompt: (prompt) => prompts.add(prompt),
    updatePrompt: (namespace: string | undefined, name: string, update: unknown, o?: UpdateOptions) =>
      prompts.update(namespace, name, update, o),
    removePrompt: (namespace, name) => prompts.remove(namespace, name),
    removePrompts: (namespace, filter) => prompts.removeMatching(namespace, filter),

    listForwards: (namespace, filter) =>
      namespace === "*"
        ? view.listNamespaces().flatMap((n) => forwards.list(n.name, filter))
        : forwards.list(namespace, filter),
    getForward: (namespace, name) => forwards.get(namespace, name),
    addForward: (forward) => forwards.add(forward),
    updateForward: (namespace: string | undefined, name: string, update: unknown, o?: UpdateOptions) =>
      forwards.update(namespace, name, update, o),
    removeForward: (namespace, name) => forwards.remove(namespace, name),

    listNamespaces: () => view.listNamespaces(),
    getNamespace: (name) => (isNamespaceName(name) ? view.getNamespace(name) : undefined),
    async createNamespace(input) {
      const value = parseNamespace(input);
      if (value.name === DEFAULT_NAMESPACE) {
        throw new TrestleError('The default namespace ("") always exists', Code.AlreadyExists);
      }
      const document: Record<string, unknown> = {};
      if (value.description !== undefined) document.description = value.description;
      if (value.labels !== undefined) document.labels = value.labels;
      const stored = await store.insertNamespace(
        { name: value.name, id: value.id ?? randomUUID(), document },
        clock.now(),
      );
      await sync.apply(() => ({ catalog: view.applyNamespace(stored, "local") }));
      return view.getNamespace(stored.name) ?? { id: stored.id, name: stored.name, ...document };
    },
    async deleteNamespace(name, deleteOptions = {}) {
      const normalized = normalizeNamespace(name);
      const { namespace } = await store.deleteNamespace(normalized, deleteOptions.cascade === true);
      await sync.apply(() => ({
        catalog: view.removeNamespace(namespace.name, namespace.id, namespace.version, "local"),
      }));
      return { id: namespace.id, name: namespace.name, ...namespace.document } as Namespace;
    },

    versionOf(kind, namespace, key) {
      const name = readableNamespace(namespace);
      return name === undefined ? undefined : view.getEntry(kind, name, key)?.stored.version;
    },
    count: (kind) => view.size(kind),
    onChange: (listener) => options.subscribe(listener),
  };
}
