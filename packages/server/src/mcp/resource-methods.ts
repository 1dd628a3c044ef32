import {
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { isUriTemplate } from "@trestle/bridge";
import type { ResourceReference } from "@trestle/core";
import { asProtocolError } from "./call-outcome.js";
import { JsonRpcErrorCode } from "./json-rpc.js";
import { ListPages } from "./list-pages.js";
import { type McpRequestHandler, onRequest, type RequestOrigin } from "./method-table.js";
import { DEFAULT_MAX_RESOURCE_URI_LENGTH, type NamespaceScope } from "./namespace-scope.js";
import { ProtocolError, RESOURCE_NOT_FOUND } from "./protocol-error.js";
import { MAX_RESOURCE_SUBSCRIPTIONS } from "./subscriptions.js";
import { encodeReadResourceResult } from "./wire/results.js";
import type { ListedItems, ListKey } from "./wire/types.js";

/**
 * The pages of a list made from a list the call service hands out, made again only when that list changes (it
 * keeps one until the catalog does): what a repeated `resources/list` or `prompts/list` answers is then made once.
 */
export function pagesOf<S, K extends ListKey>(
  key: K,
  pageSize: number,
  derive: (source: readonly S[]) => ListedItems[K][],
): (source: readonly S[]) => ListPages<K> {
  const made = new WeakMap<readonly S[], ListPages<K>>();
  return (source) => {
    let pages = made.get(source);
    if (!pages) {
      pages = new ListPages(key, derive(source), pageSize);
      made.set(source, pages);
    }
    return pages;
  };
}

const isTemplate = (resource: ResourceReference): boolean => isUriTemplate(resource.location);

/** Refuses a URI longer than the router reads, with -32602. */
function checkUriLength(uri: string, scope: NamespaceScope): void {
  const maxUriLength = scope.settings.maxResourceUriLength ?? DEFAULT_MAX_RESOURCE_URI_LENGTH;
  if (uri.length > maxUriLength) {
    throw new ProtocolError(
      JsonRpcErrorCode.InvalidParams,
      `Invalid params: the resource URI has ${uri.length} characters; at most ${maxUriLength} are accepted`,
    );
  }
}

/**
 * Adds `resources/list`, `resources/templates/list`, `resources/read`, `resources/subscribe` and
 * `resources/unsubscribe` to `table`: what the call service lets the request's principal see and read.
 */
export function registerResourceMethods(table: Map<string, McpRequestHandler>, scope: NamespaceScope): void {
  const calls = scope.backend.calls;

  const resourcePages = pagesOf("resources", scope.settings.pageSize, (all: readonly ResourceReference[]) =>
    all
      .filter((r) => !isTemplate(r))
      .map((r) => ({
        uri: r.location,
        name: r.name,
        ...(r.description ? { description: r.description } : {}),
        ...(r.mimeType ? { mimeType: r.mimeType } : {}),
      })),
  );
  onRequest(table, "resources/list", ListResourcesRequestSchema, (request, extra) => {
    scope.requireCapability("resources", "resources/list");
    return resourcePages(calls.listResources(extra.origin)).page(
      request.params?.cursor,
      scope.cacheHints(extra.origin),
    );
  });

  const templatePages = pagesOf(
    "resourceTemplates",
    scope.settings.pageSize,
    (all: readonly ResourceReference[]) =>
      all.filter(isTemplate).map((r) => ({
        uriTemplate: r.location,
        name: r.name,
        ...(r.description ? { description: r.description } : {}),
        ...(r.mimeType ? { mimeType: r.mimeType } : {}),
      })),
  );
  onRequest(table, "resources/templates/list", ListResourceTemplatesRequestSchema, (request, extra) => {
    scope.requireCapability("resources", "resources/templates/list");
    return templatePages(calls.listResources(extra.origin)).page(
      request.params?.cursor,
      scope.cacheHints(extra.origin),
    );
  });

  onRequest(table, "resources/read", ReadResourceRequestSchema, async (request, extra) => {
    scope.requireCapability("resources", "resources/read");
    const { uri } = request.params;
    checkUriLength(uri, scope);
    const resource = calls.findResource(extra.origin, uri);
    if (!resource) {
      // 2026-07-28 answers an unknown resource with Invalid params; the legacy revisions with -32002.
      const code = extra.origin.modern ? JsonRpcErrorCode.InvalidParams : RESOURCE_NOT_FOUND;
      throw new ProtocolError(code, `Resource not found: ${uri}`, { uri });
    }
    try {
      const contents = await calls.readResource(
        extra.origin,
        resource,
        uri,
        scope.contextFor(extra.origin, extra.cancellation),
      );
      // Content comes from a capability at read time: a client may not assume it stays the same.
      const hints = extra.origin.modern ? { ttlMs: 0, cacheScope: "private" as const } : undefined;
      // Served as the call service gives them: which content is binary is the backend's transport's to say.
      return encodeReadResourceResult({ contents, ...hints }, extra.origin.revision).value;
    } catch (error) {
      const mapped = asProtocolError(error, `resource '${uri}'`);
      if (mapped instanceof ProtocolError) throw mapped;
      const message = (error as { rawMessage?: string }).rawMessage ?? (error as Error).message;
      throw new ProtocolError(JsonRpcErrorCode.InternalError, `Reading ${uri} failed: ${message}`, { uri });
    }
  });

  const subscriptionsOf = (uri: string, origin: RequestOrigin, method: string): Set<string> => {
    scope.requireCapability("resources", method);
    const session = origin.session;
    if (!session) throw new ProtocolError(JsonRpcErrorCode.MethodNotFound, `Method not found: ${method}`);
    checkUriLength(uri, scope);
    session.resourceSubscriptions ??= new Set();
    return session.resourceSubscriptions;
  };
  onRequest(table, "resources/subscribe", SubscribeRequestSchema, (request, extra) => {
    const subscriptions = subscriptionsOf(request.params.uri, extra.origin, "resources/subscribe");
    if (!subscriptions.has(request.params.uri) && subscriptions.size >= MAX_RESOURCE_SUBSCRIPTIONS) {
      throw new ProtocolError(
        JsonRpcErrorCode.InvalidParams,
        `Invalid params: a session may subscribe to at most ${MAX_RESOURCE_SUBSCRIPTIONS} resources`,
      );
    }
    subscriptions.add(request.params.uri);
    return {};
  });
  onRequest(table, "resources/unsubscribe", UnsubscribeRequestSchema, (request, extra) => {
    subscriptionsOf(request.params.uri, extra.origin, "resources/unsubscribe").delete(request.params.uri);
    return {};
  });
}
