import { JsonRpcErrorCode } from "./json-rpc.js";
import type { EraRefusal } from "./protocol-era.js";

/** The change notifications a `subscriptions/listen` stream opts in to (2026-07-28 `SubscriptionFilter`). */
export interface SubscriptionFilter {
  toolsListChanged?: boolean;
  promptsListChanged?: boolean;
  resourcesListChanged?: boolean;
  resourceSubscriptions?: string[];
}

/** A notification for listeners, before the stream adds its subscription id. */
export interface ChangeNotification {
  method: string;
  params?: Record<string, unknown>;
}

/** Most resources one listen stream (or one session) may subscribe to. */
export const MAX_RESOURCE_SUBSCRIPTIONS = 1_000;

/** The catalog lists whose changes listeners hear about. */
export type ListKind = "tools" | "resources" | "prompts";

const FILTER_KEY: Record<ListKind, keyof SubscriptionFilter> = {
  tools: "toolsListChanged",
  resources: "resourcesListChanged",
  prompts: "promptsListChanged",
};

/**
 * The `subscriptions/listen` streams of every namespace on this router: each stream hears the list changes it
 * opted in to. Changes come from the catalog's change feed, so a change made through another replica reaches a
 * listener here too.
 */
export interface ListenRegistry {
  /**
   * Reads a listen request's filter and narrows it to what the namespace can deliver (the acknowledged set), or
   * refuses a malformed one (-32602) or one past the bound on open streams.
   */
  accept(namespace: string, params: unknown): { filter: SubscriptionFilter } | EraRefusal;
  /** Adds a stream; returns the function that removes it. */
  add(namespace: string, filter: SubscriptionFilter, send: (n: ChangeNotification) => boolean): () => void;
  /** Tells the listeners of `namespace` (every namespace for `undefined`) that a list changed; returns how many heard. */
  listChanged(namespace: string | undefined, kind: ListKind): number;
  /** Tells the listeners of `namespace` subscribed to `uri` that the resource was updated. */
  resourceUpdated(namespace: string, uri: string): number;
  /** Open streams. */
  readonly size: number;
}

/** Options for {@link createListenRegistry}. */
export interface ListenRegistryOptions {
  /** Most listen streams open at once on this router. */
  maxStreams: number;
  /** What a namespace can deliver; a filter is narrowed to it. */
  deliverable(namespace: string): { tools: boolean; resources: boolean; prompts: boolean };
}

interface Listener {
  filter: SubscriptionFilter;
  send(n: ChangeNotification): boolean;
}

/** Creates the registry of `subscriptions/listen` streams. */
export function createListenRegistry(options: ListenRegistryOptions): ListenRegistry {
  const byNamespace = new Map<string, Set<Listener>>();
  let size = 0;
  return {
    accept(namespace, params) {
      const raw = (params as { notifications?: unknown } | undefined)?.notifications;
      if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
        return {
          status: 400,
          code: JsonRpcErrorCode.InvalidParams,
          message: "Invalid params: subscriptions/listen needs a notifications object (the filter)",
        };
      }
      const asked = raw as Record<string, unknown>;
      const uris = asked.resourceSubscriptions;
      if (
        uris !== undefined &&
        !(
          Array.isArray(uris) &&
          uris.length <= MAX_RESOURCE_SUBSCRIPTIONS &&
          uris.every((u) => typeof u === "string")
        )
      ) {
        return {
          status: 400,
          code: JsonRpcErrorCode.InvalidParams,
          message: `Invalid params: notifications.resourceSubscriptions must be a list of at most ${MAX_RESOURCE_SUBSCRIPTIONS} URIs`,
        };
      }
      for (const key of ["toolsListChanged", "promptsListChanged", "resourcesListChanged"]) {
        if (asked[key] !== undefined && typeof asked[key] !== "boolean") {
          return {
            status: 400,
            code: JsonRpcErrorCode.InvalidParams,
            message: `Invalid params: notifications.${key} must be a boolean`,
          };
        }
      }
      if (size >= options.maxStreams) {
        return {
          status: 503,
          code: JsonRpcErrorCode.ServerError,
          message: `Too many subscription streams are open (at most ${options.maxStreams}); try again later`,
        };
      }
      const can = options.deliverable(namespace);
      const filter: SubscriptionFilter = {};
      if (asked.toolsListChanged === true && can.tools) filter.toolsListChanged = true;
      if (asked.promptsListChanged === true && can.prompts) filter.promptsListChanged = true;
      if (asked.resourcesListChanged === true && can.resources) filter.resourcesListChanged = true;
      // A resource counts as updated when its catalog entry changes or goes away (capabilities report no content
      // changes of their own).
      if (Array.isArray(uris) && uris.length > 0 && can.resources)
        filter.resourceSubscriptions = [...(uris as string[])];
      return { filter };
    },
    add(namespace, filter, send) {
      let set = byNamespace.get(namespace);
      if (!set) {
        set = new Set();
        byNamespace.set(namespace, set);
      }
      const listener: Listener = { filter, send };
      set.add(listener);
      size++;
      let removed = false;
      return () => {
        if (removed) return;
        removed = true;
        size--;
        set.delete(listener);
        if (set.size === 0 && byNamespace.get(namespace) === set) byNamespace.delete(namespace);
      };
    },
    listChanged(namespace, kind) {
      const key = FILTER_KEY[kind];
      const method = `notifications/${kind}/list_changed`;
      let heard = 0;
      const deliver = (set: Set<Listener>) => {
        for (const listener of set) if (listener.filter[key] && listener.send({ method })) heard++;
      };
      if (namespace === undefined) for (const set of byNamespace.values()) deliver(set);
      else {
        const set = byNamespace.get(namespace);
        if (set) deliver(set);
      }
      return heard;
    },
    resourceUpdated(namespace, uri) {
      let heard = 0;
      for (const listener of byNamespace.get(namespace) ?? []) {
        if (
          listener.filter.resourceSubscriptions?.includes(uri) &&
          listener.send({ method: "notifications/resources/updated", params: { uri } })
        ) {
          heard++;
        }
      }
      return heard;
    },
    get size() {
      return size;
    },
  };
}
