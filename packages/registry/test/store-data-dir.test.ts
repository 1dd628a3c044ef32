import { existsSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Code } from "@trestle/core";
import { afterAll, describe, expect, it } from "vitest";
import { createRegistry, openStore, type Store } from "../src/index.js";

describe("the embedded store in a data directory", () => {
  const dirs: string[] = [];
  afterAll(async () => {
    await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
  });

  it("runs PostgreSQL with small shared buffers: the catalog is read from memory, big buffers only grow the process", async () => {
    const root = await mkdtemp(join(tmpdir(), "trestle-registry-"));
    dirs.push(root);
    const store = await openStore({ dataDir: root });
    await store.close();
    const conf = await readFile(join(root, "postgresql.conf"), "utf8");
    expect(conf).toMatch(/^shared_buffers=1MB$/m);
  }, 90_000);

  it("creates a new data directory in another process, so the router's own process stays small", async () => {
    const root = await mkdtemp(join(tmpdir(), "trestle-registry-"));
    dirs.push(root);
    const before = process.memoryUsage().rss;
    const store = await openStore({ dataDir: join(root, "data") });
    const grown = process.memoryUsage().rss - before;
    await store.close();
    // PGlite's initdb in this process left 450–550 MiB resident; reopening a directory costs 60–130 MiB.
    expect(grown).toBeLessThan(300 * 1024 * 1024);
    expect(existsSync(join(root, "data", "PG_VERSION"))).toBe(true);
  }, 90_000);

  it("removes a throw-away store's directory when it closes", async () => {
    // This process's own: other packages' suites run beside this one and open throw-away stores of their own.
    const isOurThrowaway = async (name: string) =>
      name.startsWith("trestle-store-") &&
      (await readFile(join(tmpdir(), name, "trestle-owner.pid"), "utf8").catch(() => "")).trim() ===
        String(process.pid);
    const ours = async () => {
      const names: string[] = [];
      for (const name of await readdir(tmpdir())) if (await isOurThrowaway(name)) names.push(name);
      return names;
    };
    const before = new Set(await ours());
    const store = await openStore({ memory: true });
    const created = (await ours()).filter((name) => !before.has(name));
    expect(created).toHaveLength(1);
    await store.close();
    const left = (await readdir(tmpdir())).filter((name) => created.includes(name));
    expect(left).toEqual([]);
  }, 90_000);

  it("removes a throw-away store left behind by a process that is gone, when it opens the next one", async () => {
    const { mkdir, writeFile } = await import("node:fs/promises");
    const abandoned = join(tmpdir(), `trestle-store-abandoned${process.pid}`);
    await mkdir(join(abandoned, "data"), { recursive: true });
    // A pid no process has: above the kernel's pid_max (at most 2^22).
    await writeFile(join(abandoned, "trestle-owner.pid"), "9999999\n");
    const mine = join(tmpdir(), `trestle-store-alive${process.pid}`);
    await mkdir(mine, { recursive: true });
    await writeFile(join(mine, "trestle-owner.pid"), `${process.pid}\n`);
    try {
      const store = await openStore({ memory: true });
      await store.close();
      expect(existsSync(abandoned)).toBe(false);
      expect(existsSync(mine)).toBe(true);
    } finally {
      await rm(abandoned, { recursive: true, force: true });
      await rm(mine, { recursive: true, force: true });
    }
  }, 90_000);

  it("keeps the catalog and the registry across a restart", async () => {
    const root = await mkdtemp(join(tmpdir(), "trestle-registry-"));
    dirs.push(root);
    const dataDir = join(root, "nested", "data");

    const first = await openStore({ dataDir });
    const before = await createRegistry({ store: first });
    await before.catalog.createNamespace({ name: "kept", labels: { tier: "gold" } });
    await before.catalog.addTool({
      name: "kept-tool",
      namespace: "kept",
      uri: "https://example.test/k",
      type: "http",
    });
    const service = await before.services.register({
      serviceName: "http",
      host: "10.0.0.9",
      port: 9190,
      serviceType: "tool-invoker",
    });
    await before.close();
    await first.close();

    const second = await openStore({ dataDir });
    try {
      const after = await createRegistry({ store: second });
      expect(after.catalog.getNamespace("kept")?.labels).toEqual({ tier: "gold" });
      expect(after.catalog.getTool("kept", "kept-tool")?.uri).toBe("https://example.test/k");
      expect(after.services.get(service.id)?.target).toEqual(service);
      await after.close();
    } finally {
      await second.close();
    }
    // Creating a data directory costs PGlite seconds of CPU; on a busy machine more than the default 20 s.
  }, 90_000);

  it("refuses contradictory options before opening anything", async () => {
    await expect(openStore({ memory: true, dataDir: "/tmp/x" })).rejects.toMatchObject({
      code: Code.InvalidArgument,
    });
    const noStore = {} as Store;
    await expect(createRegistry({ store: noStore, probeIntervalMs: 0 })).rejects.toMatchObject({
      code: Code.InvalidArgument,
      rawMessage: "probeIntervalMs must be a positive number, got 0",
    });
    await expect(
      createRegistry({
        store: noStore,
        transports: { transportFor: () => ({}) as never, release() {}, close: async () => {} },
        probeIntervalMs: 10_000,
        heartbeatTimeoutMs: 5000,
      }),
    ).rejects.toMatchObject({ code: Code.InvalidArgument });
  });
});
