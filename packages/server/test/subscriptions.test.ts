import { describe, expect, it } from "vitest";
import type { EraRefusal } from "../src/mcp/protocol-era.js";
import {
  type ChangeNotification,
  createListenRegistry,
  type ListenRegistry,
  MAX_RESOURCE_SUBSCRIPTIONS,
  type SubscriptionFilter,
} from "../src/mcp/subscriptions.js";

const everything = { tools: true, resources: true, prompts: true };

function registry(
  options: {
    maxStreams?: number;
    maxStreamsPerPrincipal?: number;
    maxAgeMs?: number;
    deliverable?: (ns: string) => { tools: boolean; resources: boolean; prompts: boolean };
  } = {},
): ListenRegistry {
  return createListenRegistry({
    maxStreams: options.maxStreams ?? 100,
    maxStreamsPerPrincipal: options.maxStreamsPerPrincipal ?? 100,
    maxUriLength: 8_192,
    maxAgeMs: options.maxAgeMs ?? 60_000,
    deliverable: options.deliverable ?? (() => everything),
  });
}

function filterOf(result: { filter: SubscriptionFilter } | EraRefusal): SubscriptionFilter {
  if ("status" in result) throw new Error(`expected a filter, refused: ${result.message}`);
  return result.filter;
}

function refusalOf(result: { filter: SubscriptionFilter } | EraRefusal): EraRefusal {
  if (!("status" in result)) throw new Error(`expected a refusal, got ${JSON.stringify(result)}`);
  return result;
}

/** A listener that records what it hears. */
function recorder(): { heard: ChangeNotification[]; send: (n: ChangeNotification) => boolean } {
  const heard: ChangeNotification[] = [];
  return {
    heard,
    send: (n) => {
      heard.push(n);
      return true;
    },
  };
}

describe("listen registry: accepting a filter", () => {
  it("acknowledges exactly the list changes asked for", () => {
    const listeners = registry();
    expect(filterOf(listeners.accept("", { notifications: { toolsListChanged: true } }, "alice"))).toEqual({
      toolsListChanged: true,
    });
    expect(
      filterOf(
        listeners.accept(
          "",
          {
            notifications: { toolsListChanged: true, promptsListChanged: true, resourcesListChanged: true },
          },
          "alice",
        ),
      ),
    ).toEqual({ toolsListChanged: true, promptsListChanged: true, resourcesListChanged: true });
  });

  it("leaves out what was asked as false or not asked", () => {
    const listeners = registry();
    expect(
      filterOf(
        listeners.accept(
          "",
          { notifications: { toolsListChanged: false, promptsListChanged: true } },
          "alice",
        ),
      ),
    ).toEqual({ promptsListChanged: true });
    expect(filterOf(listeners.accept("", { notifications: {} }, "alice"))).toEqual({});
  });

  it("narrows the filter to what the namespace can deliver", () => {
    const listeners = registry({
      deliverable: (ns) => ({ tools: true, prompts: ns === "docs", resources: false }),
    });
    const asked = {
      notifications: { toolsListChanged: true, promptsListChanged: true, resourcesListChanged: true },
    };
    expect(filterOf(listeners.accept("ops", asked, "alice"))).toEqual({ toolsListChanged: true });
    expect(filterOf(listeners.accept("docs", asked, "alice"))).toEqual({
      toolsListChanged: true,
      promptsListChanged: true,
    });
  });

  it("acknowledges resource subscriptions where the namespace can deliver resources", () => {
    const listeners = registry({ deliverable: (ns) => ({ ...everything, resources: ns === "docs" }) });
    const asked = {
      notifications: { resourceSubscriptions: ["file:///a", "file:///b"], toolsListChanged: true },
    };
    expect(filterOf(listeners.accept("docs", asked, "alice"))).toEqual({
      toolsListChanged: true,
      resourceSubscriptions: ["file:///a", "file:///b"],
    });
    expect(filterOf(listeners.accept("ops", asked, "alice"))).toEqual({ toolsListChanged: true });
    expect(
      filterOf(listeners.accept("docs", { notifications: { resourceSubscriptions: [] } }, "alice")),
    ).toEqual({});
  });

  it.each([
    ["a string", "file:///a"],
    ["a list with a number", ["file:///a", 7]],
    ["an object", { uri: "file:///a" }],
    [
      "a list longer than the bound",
      Array.from({ length: MAX_RESOURCE_SUBSCRIPTIONS + 1 }, (_, i) => `r://${i}`),
    ],
  ])("refuses resourceSubscriptions that is %s with -32602", (_what, resourceSubscriptions) => {
    const r = refusalOf(registry().accept("", { notifications: { resourceSubscriptions } }, "alice"));
    expect(r.status).toBe(400);
    expect(r.code).toBe(-32602);
    expect(r.message).toContain("notifications.resourceSubscriptions");
  });

  it.each([
    ["no params", undefined],
    ["no notifications", {}],
    ["notifications that is null", { notifications: null }],
    ["notifications that is an array", { notifications: ["toolsListChanged"] }],
    ["notifications that is a string", { notifications: "all" }],
  ])("refuses %s with 400 / -32602", (_what, params) => {
    const r = refusalOf(registry().accept("", params, "alice"));
    expect(r.status).toBe(400);
    expect(r.code).toBe(-32602);
    expect(r.message).toBe("Invalid params: subscriptions/listen needs a notifications object (the filter)");
  });

  it.each(["toolsListChanged", "promptsListChanged", "resourcesListChanged"])(
    "refuses a %s that is not a boolean with -32602",
    (key) => {
      const r = refusalOf(registry().accept("", { notifications: { [key]: "yes" } }, "alice"));
      expect(r.status).toBe(400);
      expect(r.code).toBe(-32602);
      expect(r.message).toBe(`Invalid params: notifications.${key} must be a boolean`);
    },
  );

  it("refuses a stream past maxStreams with 503 and accepts again once one is removed", () => {
    const listeners = registry({ maxStreams: 2 });
    const asked = { notifications: { toolsListChanged: true } };
    const removeA = listeners.add(
      "",
      filterOf(listeners.accept("", asked, "alice")),
      () => true,
      "alice",
      () => undefined,
    );
    listeners.add(
      "other",
      filterOf(listeners.accept("other", asked, "alice")),
      () => true,
      "alice",
      () => undefined,
    );
    expect(listeners.size).toBe(2);
    const r = refusalOf(listeners.accept("", asked, "alice"));
    expect(r.status).toBe(503);
    expect(r.code).toBe(-32000);
    expect(r.message).toContain("at most 2");
    removeA();
    expect(listeners.size).toBe(1);
    expect(filterOf(listeners.accept("", asked, "alice"))).toEqual({ toolsListChanged: true });
  });

  it("judges a malformed filter before the bound (a bad request is a 400 even when full)", () => {
    const listeners = registry({ maxStreams: 0 });
    expect(refusalOf(listeners.accept("", {}, "alice")).status).toBe(400);
  });
});

describe("listen registry: delivering changes", () => {
  it("delivers a change only to the listeners whose filter asked for it", () => {
    const listeners = registry();
    const tools = recorder();
    const prompts = recorder();
    const both = recorder();
    listeners.add("", { toolsListChanged: true }, tools.send, "alice", () => undefined);
    listeners.add("", { promptsListChanged: true }, prompts.send, "alice", () => undefined);
    listeners.add(
      "",
      { toolsListChanged: true, promptsListChanged: true },
      both.send,
      "alice",
      () => undefined,
    );
    expect(listeners.listChanged("", "tools")).toBe(2);
    expect(listeners.listChanged("", "prompts")).toBe(2);
    expect(listeners.listChanged("", "resources")).toBe(0);
    expect(tools.heard).toEqual([{ method: "notifications/tools/list_changed" }]);
    expect(prompts.heard).toEqual([{ method: "notifications/prompts/list_changed" }]);
    expect(both.heard).toEqual([
      { method: "notifications/tools/list_changed" },
      { method: "notifications/prompts/list_changed" },
    ]);
  });

  it("delivers resources/list_changed to a listener that asked for it", () => {
    const listeners = registry();
    const r = recorder();
    listeners.add("", { resourcesListChanged: true }, r.send, "alice", () => undefined);
    expect(listeners.listChanged("", "resources")).toBe(1);
    expect(r.heard).toEqual([{ method: "notifications/resources/list_changed" }]);
  });

  it("delivers per namespace, and to every namespace for undefined", () => {
    const listeners = registry();
    const root = recorder();
    const ops = recorder();
    listeners.add("", { toolsListChanged: true }, root.send, "alice", () => undefined);
    listeners.add("ops", { toolsListChanged: true }, ops.send, "alice", () => undefined);
    expect(listeners.listChanged("ops", "tools")).toBe(1);
    expect(root.heard).toEqual([]);
    expect(ops.heard).toHaveLength(1);
    expect(listeners.listChanged("nobody-here", "tools")).toBe(0);
    expect(listeners.listChanged(undefined, "tools")).toBe(2);
    expect(root.heard).toHaveLength(1);
    expect(ops.heard).toHaveLength(2);
  });

  it("does not count a listener whose stream refused the notification", () => {
    const listeners = registry();
    const refusing = { heard: 0, send: () => false };
    listeners.add(
      "",
      { toolsListChanged: true },
      () => {
        refusing.heard++;
        return refusing.send();
      },
      "alice",
      () => undefined,
    );
    expect(listeners.listChanged("", "tools")).toBe(0);
    expect(refusing.heard).toBe(1);
  });

  it("stops delivering to a removed listener, and removing twice counts once", () => {
    const listeners = registry();
    const a = recorder();
    const b = recorder();
    const removeA = listeners.add("", { toolsListChanged: true }, a.send, "alice", () => undefined);
    listeners.add("", { toolsListChanged: true }, b.send, "alice", () => undefined);
    expect(listeners.size).toBe(2);
    removeA();
    removeA();
    expect(listeners.size).toBe(1);
    expect(listeners.listChanged("", "tools")).toBe(1);
    expect(a.heard).toEqual([]);
    expect(b.heard).toHaveLength(1);
  });

  it("keeps delivering to a namespace whose last listener left and a new one came", () => {
    const listeners = registry();
    const first = recorder();
    listeners.add("ops", { toolsListChanged: true }, first.send, "alice", () => undefined)();
    expect(listeners.size).toBe(0);
    expect(listeners.listChanged("ops", "tools")).toBe(0);
    const second = recorder();
    listeners.add("ops", { toolsListChanged: true }, second.send, "alice", () => undefined);
    expect(listeners.listChanged("ops", "tools")).toBe(1);
    expect(first.heard).toEqual([]);
  });
  it("tells only the listeners of the namespace subscribed to a resource that it was updated", () => {
    const listeners = registry();
    const a = recorder();
    const b = recorder();
    const elsewhere = recorder();
    listeners.add("", { resourceSubscriptions: ["file:///a"] }, a.send, "alice", () => undefined);
    listeners.add(
      "",
      { resourceSubscriptions: ["file:///b"], toolsListChanged: true },
      b.send,
      "alice",
      () => undefined,
    );
    listeners.add("ops", { resourceSubscriptions: ["file:///a"] }, elsewhere.send, "alice", () => undefined);
    expect(listeners.resourceUpdated("", "file:///a")).toBe(1);
    expect(a.heard).toEqual([{ method: "notifications/resources/updated", params: { uri: "file:///a" } }]);
    expect(b.heard).toEqual([]);
    expect(elsewhere.heard).toEqual([]);
    expect(listeners.resourceUpdated("", "file:///c")).toBe(0);
  });
});
