import { createPrincipalBudget } from "../http/principal-budget.js";
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
/** Most characters of all the URIs one listen stream's filter may name together. */
export const MAX_FILTER_URI_CHARACTERS = 64 * 1024;

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
  accept(namespace: string, params: unknown, principal: string): { filter: SubscriptionFilter } | EraRefusal;
  /**
   * Adds a stream of `principal`'s (accepted just before); returns the function that removes it. The stream is told
   * to end (`close`) once it reaches the registry's maximum age: its client opens a new one.
   */
  add(
    namespace: string,
    filter: SubscriptionFilter,
    send: (n: ChangeNotification) => boolean,
    principal: string,
    close: () => void,
  ): () => void;
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
  /** Most listen streams one principal may have open at once on this router. */
  maxStreamsPerPrincipal: number;
  /** Longest URI a filter may name, in characters. */
  maxUriLength: number;
  /** How long a stream stays open; then it is closed and its client opens another. */
  maxAgeMs: number;
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
  const perPrincipal = createPrincipalBudget(options.maxStreamsPerPrincipal);
  let size = 0;
  return {
    accept(namespace, params, principal) {
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
      if (Array.isArray(uris)) {
        const long = (uris as string[]).find((u) => u.length > options.maxUriLength);
        if (long !== undefined) {
          return {
            status: 400,
            code: JsonRpcErrorCode.InvalidParams,
            message: `Invalid params: a resource URI of the filter has ${long.length} characters; at most ${options.maxUriLength} are accepted`,
          };
        }
        const characters = (uris as string[]).reduce((sum, u) => sum + u.length, 0);
        if (characters > MAX_FILTER_URI_CHARACTERS) {
          return {
            status: 400,
            code: JsonRpcErrorCode.InvalidParams,
            message: `Invalid params: the filter's URIs have ${characters} characters together; at most ${MAX_FILTER_URI_CHARACTERS} are accepted`,
          };
        }
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
      if (perPrincipal.held(principal) >= perPrincipal.limit) {
        return {
          status: 429,
          code: JsonRpcErrorCode.ServerError,
          message: `Too many subscription streams: '${principal}' has ${perPrincipal.limit} open, the most a principal may; close one first`,
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
    add(namespace, filter, send, principal, close) {
      let set = byNamespace.get(namespace);
      if (!set) {
        set = new Set();
        byNamespace.set(namespace, set);
      }
      const listener: Listener = { filter, send };
      set.add(listener);
      size++;
      // Accepted just before, so a slot is free; a stream past the bound anyway (a caller that skipped accept)
      // is ended at once.
      const release = perPrincipal.take(principal);
      const expiry = setTimeout(close, release ? options.maxAgeMs : 0);
      expiry.unref();
      let removed = false;
      return () => {
        if (removed) return;
        removed = true;
        clearTimeout(expiry);
        release?.();
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
