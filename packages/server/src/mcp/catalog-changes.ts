import type { CatalogChange } from "@trestle/registry";
import type { ListKind } from "./subscriptions.js";

/** What a catalog change means to MCP clients, as each transport tells its clients. */
export interface CatalogChangeListener {
  /** A list of `namespace` changed (a tool, resource or prompt was added, changed or removed). */
  listChanged(namespace: string, kind: ListKind): void;
  /** A resource's entry changed or went away: what its subscribers read may have too. */
  resourceUpdated(namespace: string, uri: string): void;
  /** The namespace was deleted. */
  namespaceRemoved?(namespace: string): void;
}

const LIST_KIND: Partial<Record<CatalogChange["kind"], ListKind>> = {
  tool: "tools",
  resource: "resources",
  prompt: "prompts",
};

/**
 * Follows the catalog's change feed (every replica's changes reach it) and tells `listener` what each change
 * means to MCP clients: the one place both transports (Streamable HTTP and stdio) learn of list changes.
 * @returns the function that stops following.
 */
export function followCatalogChanges(
  catalog: { onChange(listener: (change: CatalogChange) => void): () => void },
  listener: CatalogChangeListener,
): () => void {
  return catalog.onChange((change) => {
    if (change.kind === "namespace") {
      if (change.op === "removed") listener.namespaceRemoved?.(change.namespace);
      return;
    }
    const kind = LIST_KIND[change.kind];
    if (kind) listener.listChanged(change.namespace, kind);
    if (change.kind === "resource" && change.op !== "added")
      listener.resourceUpdated(change.namespace, change.key);
  });
}
