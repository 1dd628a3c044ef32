import { Code, type ToolReference, TrestleError } from "@trestle/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CatalogChange, Registry, RegistryEvent, Store } from "../../src/index.js";
import { applyMigrations, createRegistry } from "../../src/index.js";
import { nextEvent, uniqueSuffix, until } from "./wait.js";

/** Two stores on one database: the same object for PGlite (one process), two pools for PostgreSQL. */
export interface StoreSuiteFixture {
  primary: Store;
  secondary: Store;
  close(): Promise<void>;
}

function tool(name: string, overrides: Partial<ToolReference> = {}): ToolReference {
  return {
    name,
    description: `The ${name} tool`,
    uri: `https://example.test/${name}`,
    type: "http",
    inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    ...overrides,
  };
}

async function rejection(promise: Promise<unknown>): Promise<TrestleError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof TrestleError) return error;
    throw error;
  }
  throw new Error("expected a rejection");
}

function rejectionOf(action: () => unknown): Promise<TrestleError> {
  return rejection(Promise.resolve().then(action));
}

/**
 * The behaviour every store must show, run against PGlite and against a real PostgreSQL server: CRUD with
 * validation, constraint errors, transactions that lose no concurrent update, the change feed between
 * replicas, and the service registry.
 */
export function describeStoreSuite(backend: string, open: () => Promise<StoreSuiteFixture>): void {
  describe(`store suite on ${backend}`, () => {
    let fixture: StoreSuiteFixture;
    let a: Registry;
    let b: Registry;

    beforeAll(async () => {
      fixture = await open();
      a = await createRegistry({ store: fixture.primary });
      b = await createRegistry({ store: fixture.secondary });
      await Promise.all([a.start(), b.start()]);
    });

    afterAll(async () => {
      await a?.close();
      await b?.close();
      await fixture?.close();
    });

    async function namespace(): Promise<string> {
      const name = `ns-${uniqueSuffix()}`;
      await a.catalog.createNamespace({ name });
      return name;
    }

    it("adds, reads, lists, filters and removes tools", async () => {
      const ns = await namespace();
      const added = await a.catalog.addTool(
        tool("weather", { namespace: ns, labels: { env: "prod", team: "data" } }),
      );
      expect(added.id).toMatch(/^[0-9a-f-]{36}$/);
      expect(added.namespace).toBe(ns);
      await a.catalog.addTool(tool("alerts", { namespace: ns, labels: { env: "dev" } }));
      await a.catalog.addTool(tool("maps", { namespace: ns, labels: { env: "prod", team: "geo" } }));

      expect(a.catalog.getTool(ns, "weather")).toEqual({
        ...tool("weather"),
        id: added.id,
        namespace: ns,
        labels: { env: "prod", team: "data" },
      });
      expect(a.catalog.getTool(ns, "nope")).toBeUndefined();
      expect(a.catalog.getTool("", "weather")).toBeUndefined();
      expect(a.catalog.listTools(ns).map((t) => t.name)).toEqual(["alerts", "maps", "weather"]);
      expect(a.catalog.listTools(ns, "env=prod & team!=geo").map((t) => t.name)).toEqual(["weather"]);
      expect(a.catalog.listTools(ns, "NOT env=prod OR team=geo").map((t) => t.name)).toEqual([
        "alerts",
        "maps",
      ]);

      const removed = await a.catalog.removeTool(ns, "alerts");
      expect(removed.name).toBe("alerts");
      expect((await rejection(a.catalog.removeTool(ns, "alerts"))).code).toBe(Code.NotFound);
      const bulk = await a.catalog.removeTools(ns, "env=prod");
      expect(bulk.map((t) => t.name).sort()).toEqual(["maps", "weather"]);
      expect(a.catalog.listTools(ns)).toEqual([]);
    });

    it("keeps resources by location (names unique too) and prompts by name", async () => {
      const ns = await namespace();
      const resource = await a.catalog.addResource({
        location: "file:///srv/{name}.txt",
        type: "file",
        name: "notes",
        mimeType: "text/plain",
        params: [{ name: "encoding", value: "utf-8" }],
        namespace: ns,
      });
      expect(a.catalog.getResource(ns, "file:///srv/{name}.txt")?.id).toBe(resource.id);
      expect(a.catalog.getResourceByName(ns, "notes")?.location).toBe("file:///srv/{name}.txt");
      const sameName = await rejection(
        a.catalog.addResource({ location: "file:///other", type: "file", name: "notes", namespace: ns }),
      );
      expect(sameName.code).toBe(Code.AlreadyExists);
      expect(sameName.rawMessage).toContain("named 'notes'");

      await a.catalog.addPrompt({
        name: "greet",
        messages: [{ role: "user", content: { type: "text", text: "Hello {{who}}" } }],
        arguments: [{ name: "who", required: true }],
        namespace: ns,
      });
      expect(a.catalog.getPrompt(ns, "greet")?.messages[0]?.content).toEqual({
        type: "text",
        text: "Hello {{who}}",
      });
      expect(a.catalog.listPrompts(ns).map((p) => p.name)).toEqual(["greet"]);
      await a.catalog.removeResource(ns, "file:///srv/{name}.txt");
      expect(a.catalog.listResources(ns)).toEqual([]);
    });

    it("keeps forwards by name per namespace, validates them without echoing their secrets, and feeds them to the other replica", async () => {
      const ns = await namespace();
      const seen = nextEvent<CatalogChange>(
        (l) => b.catalog.onChange(l),
        (c) => c.kind === "forward" && c.namespace === ns && c.op === "added",
        "the added forward on the other replica",
      );
      const added = await a.catalog.addForward({
        name: "everything",
        namespace: ns,
        prefix: "ev_",
        upstream: {
          kind: "stdio",
          command: "npx",
          args: ["-y", "server", "--token=canary-1"],
          mode: "pooled",
        },
      });
      expect(added.id).toMatch(/^[0-9a-f-]{36}$/);
      await seen;
      expect(b.catalog.getForward(ns, "everything")?.upstream).toEqual({
        kind: "stdio",
        command: "npx",
        args: ["-y", "server", "--token=canary-1"],
        mode: "pooled",
      });
      await a.catalog.addForward({
        name: "web",
        namespace: ns,
        upstream: { kind: "http", url: "http://127.0.0.1:9/mcp" },
      });
      expect(a.catalog.listForwards(ns).map((f) => f.name)).toEqual(["everything", "web"]);
      expect(a.catalog.listForwards("*").filter((f) => f.namespace === ns)).toHaveLength(2);
      expect(
        (
          await rejection(
            a.catalog.addForward({
              name: "web",
              namespace: ns,
              upstream: { kind: "http", url: "http://x/mcp" },
            }),
          )
        ).code,
      ).toBe(Code.AlreadyExists);

      const bad = await rejection(
        a.catalog.addForward({
          name: "bad name",
          namespace: ns,
          upstream: {
            kind: "http",
            url: "ftp://secret-host-canary/mcp",
            headers: { authorization: 7 as unknown as string },
          },
        }),
      );
      expect(bad.code).toBe(Code.InvalidArgument);
      expect(bad.rawMessage).toContain("name:");
      expect(bad.rawMessage).toContain("upstream.url");
      expect(bad.rawMessage).not.toContain("secret-host-canary");
      const noKind = await rejection(
        a.catalog.addForward({ name: "x", upstream: { command: "node" } } as never),
      );
      expect(noKind.rawMessage).toContain("upstream");

      // Tools imported from forwards keep JSON Schemas that the catalog's own tools rarely use.
      const imported = await a.catalog.addTool(
        tool("typed", {
          namespace: ns,
          inputSchema: {
            type: "object",
            properties: { "file path": { type: ["string", "null"] }, "a:b": { type: "number" } },
            required: ["file path"],
            additionalProperties: false,
          },
        }),
      );
      expect(imported.inputSchema?.properties?.["file path"]?.type).toEqual(["string", "null"]);

      await a.catalog.removeForward(ns, "web");
      expect(a.catalog.listForwards(ns).map((f) => f.name)).toEqual(["everything"]);
      await a.catalog.deleteNamespace(ns, { cascade: true });
    });

    it("refuses duplicates with AlreadyExists and unknown namespaces with NotFound", async () => {
      const ns = await namespace();
      await a.catalog.addTool(tool("dup", { namespace: ns }));
      const duplicate = await rejection(a.catalog.addTool(tool("dup", { namespace: ns })));
      expect(duplicate.code).toBe(Code.AlreadyExists);
      expect(duplicate.rawMessage).toBe(`A tool named 'dup' already exists in namespace '${ns}'`);
      // The same name in another namespace is another tool.
      await a.catalog.addTool(tool("dup"));
      await a.catalog.removeTool(undefined, "dup");

      const unknown = await rejection(a.catalog.addTool(tool("x", { namespace: "no-such-ns" })));
      expect(unknown.code).toBe(Code.NotFound);
      expect(unknown.rawMessage).toBe("Namespace 'no-such-ns' does not exist");
      expect((await rejectionOf(() => a.catalog.listTools("no-such-ns"))).code).toBe(Code.NotFound);
      expect((await rejection(a.catalog.createNamespace({ name: ns }))).code).toBe(Code.AlreadyExists);
      expect((await rejection(a.catalog.createNamespace({ name: "" }))).code).toBe(Code.AlreadyExists);
    });

    it("refuses bad input with InvalidArgument naming the problem, and leaves the store unchanged", async () => {
      const ns = await namespace();
      await a.catalog.addTool(tool("keep", { namespace: ns }));
      const before = JSON.stringify(await fixture.primary.loadSnapshot());
      const bad: [string, unknown, string][] = [
        [
          "SQL in a name",
          tool("x'; DROP TABLE trestle_catalog_entries; --", { namespace: ns }),
          "name: must consist of",
        ],
        [
          "a quote in a type",
          tool("ok", { type: "http' OR '1'='1", namespace: ns }),
          "type: must consist of",
        ],
        ["a path as namespace", tool("ok", { namespace: "../etc" }), "namespace: must be a DNS label"],
        ["an upper-case namespace", tool("ok", { namespace: "Prod" }), "namespace: must be a DNS label"],
        [
          "an oversized description",
          tool("ok", { namespace: ns, description: "d".repeat(20_000) }),
          "description: must be at most 16384",
        ],
        ["a name too long", tool("n".repeat(129), { namespace: ns }), "name: must be at most 128"],
        ["a missing uri", { name: "ok", type: "http", namespace: ns }, "uri:"],
        [
          "a uri without scheme",
          tool("ok", { uri: "just words", namespace: ns }),
          "uri: must not contain whitespace",
        ],
        ["a number as name", { ...tool("ok"), name: 42, namespace: ns }, "name:"],
        ["a NUL character", tool("ok", { description: "a\u0000b", namespace: ns }), "NUL"],
        [
          "too many labels",
          tool("ok", {
            namespace: ns,
            labels: Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`k${i}`, "v"])),
          }),
          "at most 64 labels",
        ],
        [
          "a huge schema",
          tool("ok", { namespace: ns, inputSchema: { type: "object", description: "x".repeat(1_100_000) } }),
          "more than the 1048576 allowed",
        ],
        ["an array", [tool("ok")], "expected a JSON object"],
        [
          "a bad inputSchema type",
          tool("ok", { namespace: ns, inputSchema: { type: "array" } as never }),
          "inputSchema.type",
        ],
      ];
      for (const [what, input, message] of bad) {
        const error = await rejection(a.catalog.addTool(input as ToolReference));
        expect(error.code, what).toBe(Code.InvalidArgument);
        expect(error.rawMessage, what).toContain(message);
      }
      const badResource = await rejection(
        a.catalog.addResource({ location: "file:///x", type: "file", name: "a b", namespace: ns }),
      );
      expect(badResource.rawMessage).toContain("name: must consist of");
      const badPrompt = await rejection(
        a.catalog.addPrompt({
          name: "p",
          messages: [{ role: "system", content: { type: "text", text: "x" } }],
        } as never),
      );
      expect(badPrompt.rawMessage).toContain("messages[0].role");
      expect((await rejection(a.catalog.createNamespace({ name: "-bad-" }))).code).toBe(Code.InvalidArgument);
      expect((await rejection(a.catalog.createNamespace({ name: "x".repeat(64) }))).code).toBe(
        Code.InvalidArgument,
      );
      const badFilter = await rejection(a.catalog.removeTools(ns, "env=prod &"));
      expect(badFilter.code).toBe(Code.InvalidArgument);
      expect(badFilter.rawMessage).toContain("position 11");
      expect(JSON.stringify(await fixture.primary.loadSnapshot())).toBe(before);
      expect(a.catalog.listTools(ns).map((t) => t.name)).toEqual(["keep"]);
    });

    it("creates and deletes namespaces; the default one always exists; a non-empty one needs cascade", async () => {
      expect(a.catalog.getNamespace("")?.name).toBe("");
      expect(a.catalog.listNamespaces()[0]?.name).toBe("");
      const ns = await namespace();
      expect(a.catalog.getNamespace(ns)).toMatchObject({ name: ns });
      await a.catalog.addTool(tool("t", { namespace: ns }));
      await a.catalog.addPrompt({ name: "p", messages: [], namespace: ns });
      const notEmpty = await rejection(a.catalog.deleteNamespace(ns));
      expect(notEmpty.code).toBe(Code.FailedPrecondition);
      expect(notEmpty.rawMessage).toContain("1 prompt, 1 tool");
      expect((await rejection(a.catalog.deleteNamespace(""))).code).toBe(Code.FailedPrecondition);
      expect((await rejection(a.catalog.deleteNamespace("never-made"))).code).toBe(Code.NotFound);

      // The other replica announces a namespace's removal only if its view held the namespace: one made and
      // removed before its change feed caught up is (rightly) never announced there.
      await until(
        () => b.catalog.getNamespace(ns) !== undefined && b.catalog.getTool(ns, "t") !== undefined,
        "the namespace and its tool on the other replica",
      );
      const gone = nextEvent<CatalogChange>(
        (l) => b.catalog.onChange(l),
        (c) => c.kind === "namespace" && c.namespace === ns && c.op === "removed",
        "the namespace removal on the other replica",
      );
      await a.catalog.deleteNamespace(ns, { cascade: true });
      await gone;
      expect(a.catalog.getNamespace(ns)).toBeUndefined();
      expect(b.catalog.getNamespace(ns)).toBeUndefined();
      expect(b.catalog.getTool(ns, "t")).toBeUndefined();
      expect((await rejection(a.catalog.addTool(tool("t", { namespace: ns })))).code).toBe(Code.NotFound);
    });

    it("updates by replacement or by a function, and refuses renames and stale versions", async () => {
      const ns = await namespace();
      const original = await a.catalog.addTool(tool("edit", { namespace: ns }));
      const v1 = a.catalog.versionOf("tool", ns, "edit") as number;
      const replaced = await a.catalog.updateTool(ns, "edit", tool("edit", { description: "new" }));
      expect(replaced).toMatchObject({ id: original.id, description: "new", namespace: ns });
      const v2 = a.catalog.versionOf("tool", ns, "edit") as number;
      expect(v2).toBeGreaterThan(v1);
      const updated = await a.catalog.updateTool(ns, "edit", (current) => ({
        ...current,
        labels: { v: "2" },
      }));
      expect(updated.labels).toEqual({ v: "2" });
      expect(updated.description).toBe("new");

      expect((await rejection(a.catalog.updateTool(ns, "edit", tool("renamed")))).code).toBe(
        Code.InvalidArgument,
      );
      expect((await rejection(a.catalog.updateTool(ns, "edit", tool("edit", { id: "other-id" })))).code).toBe(
        Code.InvalidArgument,
      );
      expect((await rejection(a.catalog.updateTool(ns, "missing", tool("missing")))).code).toBe(
        Code.NotFound,
      );
      const stale = await rejection(a.catalog.updateTool(ns, "edit", tool("edit"), { expectedVersion: v1 }));
      expect(stale.code).toBe(Code.Aborted);
      expect(a.catalog.getTool(ns, "edit")?.labels).toEqual({ v: "2" });
      expect(() => {
        (a.catalog.getTool(ns, "edit") as { description: string }).description = "mutated";
      }).toThrow(TypeError);
    });

    it("loses none of many concurrent updates of one entry made through two replicas", async () => {
      const ns = await namespace();
      await a.catalog.addTool(tool("counter", { namespace: ns, labels: { count: "0" } }));
      const before = a.catalog.versionOf("tool", ns, "counter") as number;
      const increment = (registry: Registry, who: string, i: number) =>
        registry.catalog.updateTool(ns, "counter", (current) => ({
          ...current,
          labels: {
            ...current.labels,
            count: String(Number(current.labels?.count) + 1),
            [`${who}${i}`]: "x",
          },
        }));
      await Promise.all(
        Array.from({ length: 8 }, (_, i) => [increment(a, "a", i), increment(b, "b", i)]).flat(),
      );
      const final = await fixture.primary.loadSnapshot();
      const row = final.entries.find((e) => e.namespace === ns && e.key === "counter");
      const labels = (row?.document as unknown as ToolReference | undefined)?.labels ?? {};
      expect(labels.count).toBe("16");
      expect(Object.keys(labels)).toHaveLength(17);
      expect(row?.version).toBeGreaterThan(before);
    });

    it("lets exactly one of two writers holding the same version win", async () => {
      const ns = await namespace();
      await a.catalog.addTool(tool("race", { namespace: ns }));
      const version = a.catalog.versionOf("tool", ns, "race") as number;
      const results = await Promise.allSettled([
        a.catalog.updateTool(ns, "race", tool("race", { description: "from a" }), {
          expectedVersion: version,
        }),
        b.catalog.updateTool(ns, "race", tool("race", { description: "from b" }), {
          expectedVersion: version,
        }),
      ]);
      const won = results.filter((r) => r.status === "fulfilled");
      const lost = results.filter((r): r is PromiseRejectedResult => r.status === "rejected");
      expect(won).toHaveLength(1);
      expect(lost).toHaveLength(1);
      expect((lost[0]?.reason as TrestleError | undefined)?.code).toBe(Code.Aborted);
    });

    it("carries every change to the other replica's in-memory view through the change feed", async () => {
      const ns = await namespace();
      const added = nextEvent<CatalogChange>(
        (l) => b.catalog.onChange(l),
        (c) => c.kind === "tool" && c.namespace === ns && c.op === "added",
        "the added tool on the other replica",
      );
      await a.catalog.addTool(tool("fed", { namespace: ns }));
      expect((await added).origin).toBe("feed");
      expect(b.catalog.getTool(ns, "fed")?.uri).toBe("https://example.test/fed");

      const updated = nextEvent<CatalogChange>(
        (l) => b.catalog.onChange(l),
        (c) => c.key === "fed" && c.op === "updated",
        "the update on the other replica",
      );
      await a.catalog.updateTool(ns, "fed", tool("fed", { description: "changed" }));
      await updated;
      expect(b.catalog.getTool(ns, "fed")?.description).toBe("changed");

      const localChanges: CatalogChange[] = [];
      const stop = a.catalog.onChange((c) => localChanges.push(c));
      const removed = nextEvent<CatalogChange>(
        (l) => b.catalog.onChange(l),
        (c) => c.key === "fed" && c.op === "removed",
        "the removal on the other replica",
      );
      await a.catalog.removeTool(ns, "fed");
      await removed;
      stop();
      expect(b.catalog.getTool(ns, "fed")).toBeUndefined();
      // The writer hears of its own change once: its own notification does not repeat it.
      expect(localChanges.filter((c) => c.key === "fed")).toMatchObject([{ op: "removed" }]);
    });

    it("registers services: one entry per id and per endpoint, heartbeats, deregistration, events everywhere", async () => {
      const name = `svc-${uniqueSuffix()}`;
      const seen = nextEvent<RegistryEvent>(
        (l) => b.services.onEvent(l),
        (e) => e.type === "registered" && e.service.target.serviceName === name,
        "the registration on the other replica",
      );
      const first = await a.services.register({
        id: null,
        serviceName: name,
        host: "10.0.0.1",
        port: 9000,
        serviceType: "tool-invoker",
      });
      expect(first.id).toMatch(/^[0-9a-f-]{36}$/);
      expect((await seen).service.health).toBe("pending");
      expect(b.services.get(first.id)?.target).toEqual(first);

      // The same endpoint again without an id (a capability that lost its id) keeps the one entry.
      const again = await a.services.register({
        serviceName: name,
        host: "10.0.0.1",
        port: 9000,
        serviceType: "tool-invoker",
      });
      expect(again.id).toBe(first.id);
      // A restart on another port with its old id is still one entry.
      const moved = await b.services.register({
        id: first.id,
        serviceName: name,
        host: "10.0.0.2",
        port: 9001,
        serviceType: "tool-invoker",
      });
      expect(moved).toMatchObject({ id: first.id, host: "10.0.0.2", port: 9001 });
      const mine = (await a.services.listWithActivity()).filter((s) => s.target.serviceName === name);
      expect(mine).toHaveLength(1);

      await a.services.heartbeat(first.id);
      const withBeat = (await a.services.listWithActivity()).find((s) => s.id === first.id);
      expect(withBeat?.lastHeartbeatAt).toBeTypeOf("number");
      expect((await rejection(a.services.heartbeat("no-such-id"))).code).toBe(Code.NotFound);
      expect((await rejection(a.services.heartbeat("bad id'"))).code).toBe(Code.InvalidArgument);
      const badRegistration = await rejection(
        a.services.register({
          serviceName: "x",
          host: "h; rm -rf /",
          port: 70000,
          serviceType: "nope",
        } as never),
      );
      expect(badRegistration.code).toBe(Code.InvalidArgument);
      expect(badRegistration.rawMessage).toMatch(/host: .*port: .*serviceType: /);

      const gone = nextEvent<RegistryEvent>(
        (l) => b.services.onEvent(l),
        (e) => e.type === "deregistered" && e.service.id === first.id,
        "the deregistration on the other replica",
      );
      await a.services.deregister(first.id);
      await gone;
      expect(b.services.get(first.id)).toBeUndefined();
      expect((await rejection(a.services.deregister(first.id))).code).toBe(Code.NotFound);
    });

    it("binds each registration to its principal: another one can neither take its name, move it, beat for it nor remove it; an admin can", async () => {
      const name = `owned-${uniqueSuffix()}`;
      const alice = { principal: "alice", admin: false };
      const mallory = { principal: "mallory", admin: false };
      const operator = { principal: "operator", admin: true };
      const target = {
        serviceName: name,
        host: "10.0.1.1",
        port: 9100,
        serviceType: "tool-invoker",
      } as const;
      const first = await a.services.register(target, alice);
      expect(a.services.get(first.id)?.registeredBy).toBe("alice");

      // Refused on either replica (the binding lives in the store), with nothing written.
      for (const [what, attempt] of [
        ["same id, new address", () => b.services.register({ ...target, id: first.id, port: 6666 }, mallory)],
        ["same endpoint, new id", () => b.services.register({ ...target, id: "mallory-1" }, mallory)],
        ["same endpoint, no id", () => b.services.register(target, mallory)],
        ["another instance of the name", () => b.services.register({ ...target, port: 9101 }, mallory)],
        ["heartbeat", () => b.services.heartbeat(first.id, mallory)],
        ["deregistration", () => b.services.deregister(first.id, mallory)],
      ] as const) {
        const refused = await rejectionOf(attempt);
        expect(refused.code, what).toBe(Code.PermissionDenied);
        expect(refused.rawMessage, what).toMatch(/another credential/);
      }
      const stored = (await a.services.listWithActivity()).filter((s) => s.target.serviceName === name);
      expect(stored).toEqual([
        expect.objectContaining({
          id: first.id,
          registeredBy: "alice",
          target: expect.objectContaining({ port: 9100 }),
        }),
      ]);

      // The owner re-registers with its id (Wanaku's way), beats and adds instances; an admin may change it,
      // and the binding stays with the owner.
      await b.services.register({ ...target, id: first.id, port: 9102 }, alice);
      await b.services.heartbeat(first.id, alice);
      const second = await a.services.register({ ...target, port: 9103 }, alice);
      await a.services.register({ ...target, id: first.id, port: 9104 }, operator);
      expect((await a.services.listWithActivity()).find((s) => s.id === first.id)?.registeredBy).toBe(
        "alice",
      );
      await a.services.deregister(second.id, operator);
      await a.services.deregister(first.id, alice);
    });

    it("keeps a service name with its first registrant after its instances are gone, deregistered or stale", async () => {
      const name = `kept-${uniqueSuffix()}`;
      const alice = { principal: "alice", admin: false };
      const mallory = { principal: "mallory", admin: false };
      const operator = { principal: "operator", admin: true };
      const target = {
        serviceName: name,
        host: "10.0.2.1",
        port: 9200,
        serviceType: "tool-invoker",
      } as const;

      const first = await a.services.register(target, alice);
      await a.services.deregister(first.id, alice);
      expect(a.services.list().filter((s) => s.target.serviceName === name)).toEqual([]);
      for (const attempt of [target, { ...target, host: "10.0.2.66", port: 6666 }]) {
        const refused = await rejection(b.services.register(attempt, mallory));
        expect(refused.code).toBe(Code.PermissionDenied);
        expect(refused.rawMessage).toMatch(/another credential/);
      }

      // Removed as stale (no sign of life), the name is still alice's.
      const again = await a.services.register(target, alice);
      const removed = await a.services.cleanupStale(-60_000);
      expect(removed.map((s) => s.id)).toContain(again.id);
      expect((await rejection(b.services.register(target, mallory))).code).toBe(Code.PermissionDenied);
      expect((await a.services.listWithActivity()).filter((s) => s.target.serviceName === name)).toEqual([]);

      // Its owner and an admin still may; an admin's instance leaves the name with alice.
      const back = await b.services.register(target, alice);
      const byAdmin = await a.services.register({ ...target, port: 9201 }, operator);
      expect((await rejection(b.services.register({ ...target, port: 9202 }, mallory))).code).toBe(
        Code.PermissionDenied,
      );
      await a.services.deregister(byAdmin.id, operator);
      await a.services.deregister(back.id, alice);
    });

    it("binds a service name to the principal the configuration names: no one else claims it first, and it takes over instances registered before", async () => {
      const configuredName = `configured-${uniqueSuffix()}`;
      const heldName = `held-${uniqueSuffix()}`;
      const alice = { principal: "alice", admin: false };
      const mallory = { principal: "mallory", admin: false };
      const target = (serviceName: string, port: number) =>
        ({ serviceName, host: "10.0.3.1", port, serviceType: "tool-invoker" }) as const;
      // Mallory held this name before the configuration gave it to alice.
      const before = await a.services.register(target(heldName, 9300), mallory);

      const configured = await createRegistry({
        store: fixture.primary,
        configuredOwner: (name) => (name === configuredName || name === heldName ? "alice" : undefined),
      });
      await configured.start();
      try {
        // Nobody holds it yet, and still mallory may not claim it.
        const claim = await rejection(configured.services.register(target(configuredName, 9301), mallory));
        expect(claim.code).toBe(Code.PermissionDenied);
        expect(
          (await configured.services.listWithActivity()).some((s) => s.target.serviceName === configuredName),
        ).toBe(false);
        const mine = await configured.services.register(target(configuredName, 9301), alice);
        expect(configured.services.get(mine.id)?.registeredBy).toBe("alice");

        // The configured owner registers under a name another principal held, and that one no longer can.
        const taken = await configured.services.register(target(heldName, 9302), alice);
        expect((await rejection(configured.services.register(target(heldName, 9303), mallory))).code).toBe(
          Code.PermissionDenied,
        );
        await configured.services.deregister(taken.id, alice);
        await configured.services.deregister(mine.id, alice);
        await configured.services.deregister(before.id, mallory);
      } finally {
        await configured.close();
      }
    });

    it("refuses a new instance beyond maxInstancesPerService, and still lets an existing one re-register", async () => {
      const capped = await createRegistry({ store: fixture.primary, maxInstancesPerService: 2 });
      await capped.start();
      try {
        const name = `capped-${uniqueSuffix()}`;
        const at = (port: number, id?: string) => ({
          ...(id ? { id } : {}),
          serviceName: name,
          host: "10.0.2.1",
          port,
          serviceType: "tool-invoker" as const,
        });
        const one = await capped.services.register(at(9200));
        await capped.services.register(at(9201));
        const refused = await rejectionOf(() => capped.services.register(at(9202)));
        expect(refused.code).toBe(Code.FailedPrecondition);
        expect(refused.rawMessage).toMatch(/maxInstancesPerService/);
        expect(
          (await capped.services.listWithActivity()).filter((s) => s.target.serviceName === name),
        ).toHaveLength(2);
        await capped.services.register(at(9203, one.id));
      } finally {
        await capped.close();
      }
    });

    it("records health changes with history, and removes long-silent services", async () => {
      const name = `hist-${uniqueSuffix()}`;
      const target = await a.services.register({
        serviceName: name,
        host: "h",
        port: 1,
        serviceType: "resource-provider",
      });
      const changed = await fixture.primary.recordHealth(target.id, "healthy", undefined, Date.now());
      expect(changed?.health).toBe("healthy");
      expect(await fixture.primary.recordHealth(target.id, "healthy", undefined, Date.now())).toBeUndefined();
      await fixture.primary.recordHealth(target.id, "down", "Connection refused", Date.now());
      const history = await a.services.healthHistory(target.id);
      expect(history.map((h) => h.state)).toEqual(["down", "healthy", "pending"]);
      expect(history[0]?.message).toBe("Connection refused");
      // Registering again is a sign of life: a down service waits for a probe again, as a new one does.
      const back = await a.services.register({
        serviceName: name,
        host: "h",
        port: 1,
        serviceType: "resource-provider",
      });
      expect(back.id).toBe(target.id);
      expect(a.services.get(target.id)?.health).toBe("pending");
      expect((await a.services.healthHistory(target.id))[0]?.state).toBe("pending");

      const removed = await a.services.cleanupStale(-60_000);
      expect(removed.map((s) => s.id)).toContain(target.id);
      expect(a.services.get(target.id)).toBeUndefined();
    });

    it("loads everything it holds into a new registry", async () => {
      const ns = await namespace();
      await a.catalog.addTool(tool("persisted", { namespace: ns }));
      const service = await a.services.register({
        serviceName: `p-${uniqueSuffix()}`,
        host: "h",
        port: 2,
        serviceType: "tool-invoker",
      });
      const fresh = await createRegistry({ store: fixture.secondary });
      try {
        expect(fresh.catalog.getTool(ns, "persisted")?.name).toBe("persisted");
        expect(fresh.services.get(service.id)?.target).toEqual(service);
      } finally {
        await fresh.close();
      }
    });

    it("takes a lease for one owner at a time until it expires", async () => {
      const lease = `lease-${uniqueSuffix()}`;
      expect(await fixture.primary.claimLease(lease, "one", 1000, 100)).toBe(true);
      expect(await fixture.secondary.claimLease(lease, "two", 1050, 100)).toBe(false);
      expect(await fixture.primary.claimLease(lease, "one", 1050, 100)).toBe(true);
      expect(await fixture.secondary.claimLease(lease, "two", 1200, 100)).toBe(true);
      await fixture.secondary.releaseLease(lease, "two");
      expect(await fixture.primary.claimLease(lease, "one", 1201, 100)).toBe(true);
    });

    it("lends its SQL client to another owner of state: its own migrations, tables and notifications", async () => {
      const suffix = uniqueSuffix();
      const table = `other_owner_notes_${suffix}`;
      const steps = [
        { version: 1, name: "notes", sql: `CREATE TABLE ${table} (id text PRIMARY KEY, body text NOT NULL)` },
        { version: 2, name: "a step that no longer does anything", sql: "" },
      ];
      const options = { table: `other_owner_migrations_${suffix}`, lockKey: 4_242_000_001 };
      const registrySteps = () =>
        fixture.primary.sql.query<{ version: number }>(
          "SELECT version FROM trestle_schema_migrations ORDER BY version",
        );
      const before = await registrySteps();
      // Both replicas start at once: each step is applied once, recorded apart from the registry's.
      const applied = await Promise.all([
        applyMigrations(fixture.primary.sql, steps, options),
        applyMigrations(fixture.secondary.sql, steps, options),
      ]);
      expect(applied.flat().sort((x, y) => x - y)).toEqual([1, 2]);
      expect(await applyMigrations(fixture.secondary.sql, steps, options)).toEqual([]);
      expect(await registrySteps()).toEqual(before);

      const heard: string[] = [];
      const channel = `other_owner_${suffix}`;
      const stop = await fixture.secondary.sql.listen(
        channel,
        (payload) => heard.push(payload),
        () => undefined,
      );
      await fixture.primary.sql.query(
        `WITH written AS (INSERT INTO ${table} (id, body) VALUES ($1, $2)) SELECT pg_notify($3, $1)`,
        ["n1", "hello", channel],
      );
      await until(() => heard.includes("n1"), "the other owner's notification on the other store");
      await stop();
      expect(await fixture.secondary.sql.query(`SELECT id, body FROM ${table}`)).toEqual([
        { id: "n1", body: "hello" },
      ]);
      const counted = await fixture.secondary.sql.transaction(async (tx) => {
        await tx.query(`INSERT INTO ${table} (id, body) VALUES ('n2', 'again')`);
        return tx.query<{ n: number | string }>(`SELECT count(*) AS n FROM ${table}`);
      });
      expect(Number(counted[0]?.n)).toBe(2);
    });
  });
}
