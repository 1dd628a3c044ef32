import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { Code, type TrestleError } from "@trestle/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CatalogChange, createRegistry, openStore, type Registry, type Store } from "../src/index.js";
import { MIGRATIONS } from "../src/migrations.js";
import { adminQuery, createTestDatabase, type TestDatabase } from "./support/postgres.js";
import { startTcpProxy } from "./support/tcp-proxy.js";
import { nextEvent, uniqueSuffix } from "./support/wait.js";

interface ReplicaMessage {
  type: "ready" | "change" | "added" | "error";
  at?: number;
  change?: CatalogChange;
  inView?: boolean;
  name?: string;
  message?: string;
}

/** A replica in a child process (test/fixtures/replica-process.ts), talking JSON lines. */
class ReplicaProcess {
  readonly messages: ReplicaMessage[] = [];
  private readonly waiters = new Set<() => void>();
  private stderr = "";

  constructor(readonly child: ChildProcessWithoutNullStreams) {
    let buffer = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      buffer += chunk;
      for (let newline = buffer.indexOf("\n"); newline >= 0; newline = buffer.indexOf("\n")) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        if (line.trim() === "") continue;
        this.messages.push(JSON.parse(line) as ReplicaMessage);
        for (const wake of [...this.waiters]) wake();
      }
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      this.stderr += chunk;
    });
    child.on("exit", () => {
      for (const wake of [...this.waiters]) wake();
    });
  }

  static start(databaseUrl: string): ReplicaProcess {
    const script = fileURLToPath(new URL("./fixtures/replica-process.ts", import.meta.url));
    const register = new URL("./support/ts-register.mjs", import.meta.url).href;
    return new ReplicaProcess(
      spawn(process.execPath, ["--conditions=@trestle/source", "--import", register, script, databaseUrl], {
        stdio: ["pipe", "pipe", "pipe"],
      }),
    );
  }

  /** The first message (already received or to come) that `predicate` accepts. */
  waitFor(
    predicate: (m: ReplicaMessage) => boolean,
    what: string,
    timeoutMs: number,
  ): Promise<ReplicaMessage> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const found = this.messages.find(predicate);
        if (found) {
          done();
          resolve(found);
        } else if (this.child.exitCode !== null) {
          done();
          reject(
            new Error(`the replica process exited (${this.child.exitCode}) before ${what}: ${this.stderr}`),
          );
        }
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`Timed out after ${timeoutMs} ms waiting for ${what}; stderr: ${this.stderr}`));
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(check);
      };
      this.waiters.add(check);
      check();
    });
  }

  send(line: string): void {
    this.child.stdin.write(`${line}\n`);
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = new Promise((resolve) => this.child.once("exit", resolve));
    this.child.stdin.end();
    const timer = setTimeout(() => this.child.kill("SIGKILL"), 5000);
    await exited;
    clearTimeout(timer);
  }
}

describe("replicas on one PostgreSQL server", () => {
  let database: TestDatabase;
  let store: Store;
  let registry: Registry;

  beforeAll(async () => {
    database = await createTestDatabase("replicas");
    store = await openStore({ databaseUrl: database.url });
    registry = await createRegistry({ store });
    await registry.start();
  });

  afterAll(async () => {
    await registry?.close();
    await store?.close();
    await database?.drop();
  });

  it("applies the migrations once when several replicas start at once on an empty database", async () => {
    const fresh = await createTestDatabase("migrate");
    try {
      const stores = await Promise.all([1, 2, 3].map(() => openStore({ databaseUrl: fresh.url })));
      await Promise.all(stores.map((s) => s.close()));
      const applied = await adminQuery(
        fresh.url,
        "SELECT version FROM trestle_schema_migrations ORDER BY version",
      );
      expect(applied.rows.map((r) => r.version)).toEqual(MIGRATIONS.map((m) => m.version));
    } finally {
      await fresh.drop();
    }
  });

  it("reports a database it cannot open as Unavailable without the password in the message", async () => {
    const url = new URL(database.url);
    url.username = "postgres";
    url.password = "s3cret-pw";
    url.pathname = "/no_such_database";
    const error = await openStore({ databaseUrl: url.toString() }).then(
      () => undefined,
      (e: unknown) => e as TrestleError,
    );
    expect(error?.code).toBe(Code.Unavailable);
    expect(error?.rawMessage).toContain("no_such_database");
    expect(error?.message).not.toContain("s3cret-pw");
  });

  it("shows a tool added in one process in the other process's in-memory view within a second, both ways", async () => {
    const replica = ReplicaProcess.start(database.url);
    try {
      await replica.waitFor((m) => m.type === "ready", "the replica to start", 30_000);
      const ns = `two-${uniqueSuffix()}`;
      await registry.catalog.createNamespace({ name: ns });

      await registry.catalog.addTool({
        name: "from-parent",
        namespace: ns,
        uri: "https://example.test/p",
        type: "http",
      });
      const committedAt = Date.now();
      const seen = await replica.waitFor(
        (m) => m.type === "change" && m.change?.key === "from-parent" && m.change.op === "added",
        "the child to see the parent's tool",
        5000,
      );
      expect(seen.inView).toBe(true);
      expect(seen.change?.origin).toBe("feed");
      expect((seen.at as number) - committedAt).toBeLessThan(1000);

      const inParent = nextEvent<CatalogChange>(
        (l) => registry.catalog.onChange(l),
        (c) => c.key === "from-child" && c.op === "added",
        "the parent to see the child's tool",
        5000,
      );
      replica.send(`add ${ns} from-child`);
      const added = await replica.waitFor(
        (m) => m.type === "added" || m.type === "error",
        "the child's write",
        5000,
      );
      expect(added.type).toBe("added");
      const change = await inParent;
      expect(change.origin).toBe("feed");
      expect(Date.now() - (added.at as number)).toBeLessThan(1000);
      expect(registry.catalog.getTool(ns, "from-child")?.uri).toBe("https://example.test/from-child");
    } finally {
      await replica.stop();
    }
  });

  it("catches up after its listening connection was lost, through a full resynchronisation", async () => {
    const server = new URL(database.url);
    const proxy = await startTcpProxy(server.hostname, Number(server.port));
    const proxied = new URL(database.url);
    proxied.port = String(proxy.port);
    const lonelyStore = await openStore({ databaseUrl: proxied.toString() });
    const lonely = await createRegistry({ store: lonelyStore });
    await lonely.start();
    try {
      const ns = `lost-${uniqueSuffix()}`;
      await registry.catalog.createNamespace({ name: ns });
      await nextEvent<CatalogChange>(
        (l) => lonely.catalog.onChange(l),
        (c) => c.kind === "namespace" && c.namespace === ns,
        "the namespace on the proxied replica",
      );

      proxy.cut();
      // Written while the replica cannot hear: its notification is lost to it.
      await registry.catalog.addTool({
        name: "missed",
        namespace: ns,
        uri: "https://example.test/m",
        type: "http",
      });
      const caughtUp = nextEvent<CatalogChange>(
        (l) => lonely.catalog.onChange(l),
        (c) => c.key === "missed",
        "the replica to catch up after reconnecting",
        10_000,
      );
      proxy.restore();
      expect((await caughtUp).origin).toBe("resync");
      expect(lonely.catalog.getTool(ns, "missed")?.name).toBe("missed");

      // And it follows the feed again afterwards.
      const next = nextEvent<CatalogChange>(
        (l) => lonely.catalog.onChange(l),
        (c) => c.key === "after",
        "the next change through the feed",
      );
      await registry.catalog.addTool({
        name: "after",
        namespace: ns,
        uri: "https://example.test/a",
        type: "http",
      });
      expect((await next).origin).toBe("feed");
    } finally {
      await lonely.close();
      await lonelyStore.close();
      await proxy.close();
    }
  });
});
