import { describe, expect, it } from "vitest";
import { createCatalogView } from "./catalog-view.js";
import type { StoredEntry, StoredNamespace } from "./store.js";

function namespace(name: string, id: string, version: number): StoredNamespace {
  return { name, id, document: {}, version, createdAt: 0, updatedAt: 0 };
}

function tool(namespaceName: string, name: string, id: string, version: number): StoredEntry {
  return {
    kind: "tool",
    namespace: namespaceName,
    key: name,
    name,
    id,
    document: { id, name, namespace: namespaceName },
    version,
    createdAt: 0,
    updatedAt: 0,
  };
}

describe("the catalog view's namespaces", () => {
  it("updates a namespace read again with the same id", () => {
    const view = createCatalogView();
    expect(view.applyNamespace(namespace("team", "n1", 1), "local").map((c) => c.op)).toEqual(["added"]);
    expect(view.applyNamespace(namespace("team", "n1", 2), "feed").map((c) => c.op)).toEqual(["updated"]);
    expect(view.applyNamespace(namespace("team", "n1", 2), "feed")).toEqual([]);
  });

  it("removes a namespace replaced under its name before the new one is added, with its entries", () => {
    // The feed may show the replacement first: a row read later than its notification is already the new one.
    const view = createCatalogView();
    view.applyNamespace(namespace("team", "n1", 1), "feed");
    view.applyEntry(tool("team", "old", "t1", 2), "feed");

    const changes = view.applyNamespace(namespace("team", "n2", 5), "feed");

    expect(changes.map((c) => [c.kind, c.op, c.id])).toEqual([
      ["tool", "removed", "t1"],
      ["namespace", "removed", "n1"],
      ["namespace", "added", "n2"],
    ]);
    expect(view.getNamespace("team")?.id).toBe("n2");
    expect(view.getEntry("tool", "team", "old")).toBeUndefined();
    // The deletion's own notification, seen afterwards, changes nothing.
    expect(view.removeNamespace("team", "n1", 4, "feed")).toEqual([]);
    expect(view.getNamespace("team")?.id).toBe("n2");
  });
});
