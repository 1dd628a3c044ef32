import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { applyMigrations, openStore, type Store, type StoreSqlClient } from "@trestle/registry";
import { type PostgresCluster, startPostgresCluster } from "@trestle/test-support/postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAuditLog } from "../../src/audit/audit-log.js";
import { createAuditTable } from "../../src/audit/audit-table.js";
import { SERVER_MIGRATIONS, SERVER_MIGRATIONS_OPTIONS } from "../../src/state/migrations.js";
import { openServerState } from "../../src/state/server-state.js";

/**
 * The registry's migrations 4 to 7 as released, before the server took their tables over: what a database an
 * older router prepared holds. Frozen here; never edit.
 */
const LEGACY_REGISTRY_STEPS: Readonly<Record<4 | 5 | 6 | 7, string>> = {
  4: `
      CREATE TABLE trestle_a2a_tasks (
        id text PRIMARY KEY,
        namespace text NOT NULL,
        context_id text NOT NULL,
        state text NOT NULL,
        document jsonb NOT NULL,
        created_at bigint NOT NULL,
        updated_at bigint NOT NULL
      );
      CREATE INDEX trestle_a2a_tasks_namespace ON trestle_a2a_tasks (namespace, updated_at DESC);
    `,
  5: `
      CREATE TABLE trestle_mcp_tasks (
        id text PRIMARY KEY,
        namespace text NOT NULL,
        principal text NOT NULL,
        status text NOT NULL,
        document jsonb NOT NULL,
        requests jsonb NOT NULL DEFAULT '{}'::jsonb,
        created_at bigint NOT NULL,
        updated_at bigint NOT NULL,
        expires_at bigint NOT NULL
      );
      CREATE INDEX trestle_mcp_tasks_expires ON trestle_mcp_tasks (expires_at);
    `,
  6: `
      CREATE TABLE trestle_ended_mcp_sessions (
        digest text PRIMARY KEY,
        ended_at bigint NOT NULL,
        expires_at bigint NOT NULL
      );
      CREATE INDEX trestle_ended_mcp_sessions_ended ON trestle_ended_mcp_sessions (ended_at);
      CREATE INDEX trestle_ended_mcp_sessions_expires ON trestle_ended_mcp_sessions (expires_at);
    `,
  7: `
      ALTER TABLE trestle_a2a_tasks ADD COLUMN principal text NOT NULL DEFAULT '';
      CREATE INDEX trestle_a2a_tasks_principal ON trestle_a2a_tasks (principal, updated_at DESC);
      CREATE INDEX trestle_mcp_tasks_principal ON trestle_mcp_tasks (principal, expires_at);
    `,
};

const FRONT_TABLES = ["trestle_a2a_tasks", "trestle_mcp_tasks", "trestle_ended_mcp_sessions"];
/** Where an older router announced ended sessions; replicas of both versions listen on it during an upgrade. */
const ENDED_SESSIONS_CHANNEL = "trestle_ended_mcp_sessions";
const NOW = 1_000_000;

/** Closes what the tests left open, when the file ends. */
const throwaways: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const close of throwaways.splice(0).reverse()) await close();
});

/**
 * The fronts' tables in `schema` as the database describes them: columns in order, with types and defaults, and
 * indexes (their definitions without the schema's name).
 */
async function frontSchema(sql: StoreSqlClient, schema = "public"): Promise<unknown[]> {
  const columns = await sql.query(
    `SELECT table_name, column_name, data_type, is_nullable, column_default FROM information_schema.columns
      WHERE table_schema = $2 AND table_name = ANY($1::text[]) ORDER BY table_name, ordinal_position`,
    [FRONT_TABLES, schema],
  );
  const indexes = await sql.query<{ tablename: string; indexname: string; indexdef: string }>(
    `SELECT tablename, indexname, indexdef FROM pg_indexes
      WHERE schemaname = $2 AND tablename = ANY($1::text[]) ORDER BY indexname`,
    [FRONT_TABLES, schema],
  );
  return [...columns, ...indexes.map((i) => ({ ...i, indexdef: i.indexdef.replaceAll(`${schema}.`, "") }))];
}

async function registrySteps(sql: StoreSqlClient): Promise<unknown[]> {
  return sql.query("SELECT version, name FROM trestle_schema_migrations ORDER BY version");
}

/** A database that can be opened again after its store closed (a router restarting on it). */
interface PersistentDatabase {
  open(): Promise<Store>;
  destroy(): Promise<void>;
}

function describeUpgrade(
  backend: string,
  setup: {
    persistent(): Promise<PersistentDatabase>;
    /** A store on a database of its own, removed when the run ends. */
    throwaway(): Promise<Store>;
  },
): void {
  // Each test opens databases of its own: an embedded one takes seconds to create, more on a loaded machine.
  describe(`the fronts' state across the upgrade, on ${backend}`, { timeout: 120_000 }, () => {
    it("keeps an older router's tasks and ended sessions, readable and writable, once the server owns the tables", async () => {
      const database = await setup.persistent();
      try {
        // The registry's steps 4 to 7 make nothing now: the older router's made the tables, by hand here.
        const older = await database.open();
        expect(await frontSchema(older.sql)).toEqual([]);
        for (const step of [4, 5, 6] as const) await older.sql.exec(LEGACY_REGISTRY_STEPS[step]);
        await older.sql.query(
          `INSERT INTO trestle_a2a_tasks (id, namespace, context_id, state, document, created_at, updated_at)
           VALUES ('before-owners', 'team', 'c0', 'TASK_STATE_COMPLETED', '{"id":"before-owners"}', 1, 1)`,
        );
        await older.sql.exec(LEGACY_REGISTRY_STEPS[7]);
        await older.sql.query(
          `INSERT INTO trestle_a2a_tasks (id, namespace, principal, context_id, state, document, created_at, updated_at)
           VALUES ('owned', 'team', 'alice', 'c1', 'TASK_STATE_WORKING', '{"id":"owned","contextId":"c1"}', 2, 900000)`,
        );
        await older.sql.query(
          `INSERT INTO trestle_mcp_tasks (id, namespace, principal, status, document, requests, created_at, updated_at, expires_at)
           VALUES ('m-old', 'team', 'alice', 'input_required', '{"taskId":"m-old"}',
                   '{"cancel":true,"inputResponses":{"a":{"action":"accept"}}}', 3, 3, 2000000)`,
        );
        await older.sql.query(
          "INSERT INTO trestle_ended_mcp_sessions (digest, ended_at, expires_at) VALUES ('old-seal', 4, 2000000)",
        );
        const recorded = await registrySteps(older.sql);
        await older.close();

        // The router restarts with this version: the registry applies nothing, the server adopts the tables.
        const store = await database.open();
        try {
          expect(await registrySteps(store.sql)).toEqual(recorded);
          const { state, applied } = await openServerState(store.sql);
          expect(applied).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);

          expect(await state.a2aTasks.loadA2aTask("owned")).toEqual({
            id: "owned",
            namespace: "team",
            principal: "alice",
            contextId: "c1",
            state: "TASK_STATE_WORKING",
            document: { id: "owned", contextId: "c1" },
            updatedAt: 900_000,
          });
          // A task stored before owners were kept still belongs to nobody.
          expect(await state.a2aTasks.loadA2aTask("before-owners")).toMatchObject({ principal: "" });
          expect(
            (await state.a2aTasks.listA2aTasks("team", "alice", { limit: 10 })).map((t) => t.id),
          ).toEqual(["owned"]);
          // The count of the rows an older router stored, made by the step that keeps counts.
          expect(await state.a2aTasks.countA2aTasks("alice")).toBe(1);
          expect(await state.mcpTasks.loadMcpTask("m-old", NOW)).toEqual({
            id: "m-old",
            namespace: "team",
            principal: "alice",
            status: "input_required",
            document: { taskId: "m-old" },
            createdAt: 3,
            expiresAt: 2_000_000,
          });
          expect(await state.mcpTasks.takeMcpTaskRequests("m-old")).toEqual({
            cancel: true,
            inputResponses: { a: { action: "accept" } },
          });
          expect(await state.endedMcpSessions.isMcpSessionEnded("old-seal", NOW)).toBe(true);

          // And it writes to them as before.
          expect(
            await state.a2aTasks.saveA2aTask(
              {
                id: "owned",
                namespace: "team",
                principal: "alice",
                contextId: "c1",
                state: "TASK_STATE_COMPLETED",
                document: { id: "owned", done: true },
              },
              NOW,
            ),
          ).toBe(true);
          expect(await state.a2aTasks.loadA2aTask("owned")).toMatchObject({ state: "TASK_STATE_COMPLETED" });
          await state.mcpTasks.saveMcpTask(
            {
              id: "m-new",
              namespace: "team",
              principal: "bob",
              status: "working",
              document: {},
              createdAt: NOW,
              expiresAt: NOW + 60_000,
            },
            NOW,
          );
          expect(await state.mcpTasks.countMcpTasks("bob", NOW)).toBe(1);
          await state.endedMcpSessions.endMcpSession("new-seal", NOW, NOW + 60_000);
          expect(await state.endedMcpSessions.mcpSessionsEndedSince(0)).toEqual(
            expect.arrayContaining(["old-seal", "new-seal"]),
          );
          expect((await openServerState(store.sql)).applied).toEqual([]);
        } finally {
          await store.close();
        }
      } finally {
        await database.destroy();
      }
    });

    it("moves the audit records of the row-per-record layout into batches, in order, and those an older replica writes during the upgrade", async () => {
      const store = await setup.throwaway();
      await applyMigrations(store.sql, SERVER_MIGRATIONS.slice(0, 7), SERVER_MIGRATIONS_OPTIONS);
      /** A record as a router of the row-per-record layout wrote it. */
      const writeRow = (at: number, principal: string, args: string | null) =>
        store.sql.query(
          `INSERT INTO trestle_audit (at, principal_id, principal_name, principal_kind, namespace, method, target,
             decision, rule, outcome, error_code, duration_ms, front, request_id, arguments)
           VALUES ($1, $2, $2, 'token', 'team', 'tools/call', 'echo', 'allowed', NULL, 'ok', NULL, 4, 'mcp', '9', $3::jsonb)`,
          [at, principal, args],
        );
      await writeRow(1, "alice", '{"query":{"nested":[1,"two"]}}');
      await writeRow(2, "bob", null);
      await writeRow(3, "alice", null);

      expect((await openServerState(store.sql)).applied).toEqual([8]);
      const table = createAuditTable(store.sql);
      const moved = await table.query({ limit: 10 });
      expect(moved.records.map((r) => [r.at, r.principalId])).toEqual([
        [3, "alice"],
        [2, "bob"],
        [1, "alice"],
      ]);
      expect(moved.records[2]).toEqual({
        id: moved.records[2]?.id,
        at: 1,
        principalId: "alice",
        principalName: "alice",
        principalKind: "token",
        namespace: "team",
        method: "tools/call",
        target: "echo",
        decision: "allowed",
        rule: null,
        outcome: "ok",
        errorCode: null,
        durationMs: 4,
        front: "mcp",
        requestId: "9",
        arguments: { query: { nested: [1, "two"] } },
      });
      expect((await table.query({ principal: "bob", limit: 10 })).records.map((r) => r.at)).toEqual([2]);
      expect(await store.sql.query("SELECT id FROM trestle_audit", [])).toEqual([]);

      // A replica of the older layout goes on writing rows until it is upgraded: the sweep moves them.
      await writeRow(4, "carol", null);
      const log = createAuditLog({
        table,
        logger: { warn: () => undefined },
        retentionMs: 60_000,
        now: () => 10,
      });
      await expect
        .poll(async () => (await table.query({ limit: 10 })).records.map((r) => r.principalId), {
          timeout: 10_000,
        })
        .toEqual(["carol", "alice", "bob", "alice"]);
      await log.close();
    });

    it("gives a new database the fronts' tables from the server's steps: the tables, columns and indexes the registry's made", async () => {
      const fresh = await setup.throwaway();
      expect(await frontSchema(fresh.sql)).toEqual([]);
      expect((await openServerState(fresh.sql)).applied).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
      const made = await frontSchema(fresh.sql);

      // The registry's steps as an older router ran them, in a schema of their own on the same database.
      await fresh.sql.exec("CREATE SCHEMA older_router");
      await fresh.sql.transaction(async (tx) => {
        await tx.exec("SET LOCAL search_path TO older_router");
        for (const step of [4, 5, 6, 7] as const) await tx.exec(LEGACY_REGISTRY_STEPS[step]);
      });
      // The same schema both ways: a router of either version works on a database the other prepared.
      expect(made).toEqual(await frontSchema(fresh.sql, "older_router"));
      // 20 columns (8 + 9 + 3) and 9 indexes (3 per table, primary keys included).
      expect(made).toHaveLength(20 + 9);
    });
  });
}

describeUpgrade("PGlite", {
  async persistent() {
    const dir = await mkdtemp(join(tmpdir(), "trestle-state-"));
    const dataDir = join(dir, "data");
    return {
      open: () => openStore({ dataDir }),
      destroy: () => rm(dir, { recursive: true, force: true }),
    };
  },
  async throwaway() {
    const store = await openStore({ memory: true });
    throwaways.push(() => store.close());
    return store;
  },
});

describe("on PostgreSQL", () => {
  let cluster: PostgresCluster;
  let databases = 0;
  beforeAll(async () => {
    cluster = await startPostgresCluster();
  });
  afterAll(async () => {
    await cluster?.destroy();
  });

  /** A new empty database on the cluster, by URL. */
  async function createDatabase(): Promise<{ url: string; name: string }> {
    const name = `trestle_state_${++databases}`;
    await cluster.query(`CREATE DATABASE ${name}`);
    const url = new URL(cluster.url);
    url.pathname = `/${name}`;
    return { url: url.toString(), name };
  }

  describeUpgrade("PostgreSQL", {
    async persistent() {
      const { url, name } = await createDatabase();
      return {
        open: () => openStore({ databaseUrl: url }),
        destroy: async () => {
          await cluster.query(`DROP DATABASE ${name} WITH (FORCE)`);
        },
      };
    },
    async throwaway() {
      const store = await openStore({ databaseUrl: (await createDatabase()).url });
      throwaways.push(() => store.close());
      return store;
    },
  });

  it("lets replicas that start at once apply the server's steps once, and tells each the sessions the other ended", async () => {
    const { url } = await createDatabase();
    const [a, b] = await Promise.all([openStore({ databaseUrl: url }), openStore({ databaseUrl: url })]);
    throwaways.push(
      () => a.close(),
      () => b.close(),
    );
    const [onA, onB] = await Promise.all([openServerState(a.sql), openServerState(b.sql)]);
    expect([...onA.applied, ...onB.applied].sort((x, y) => x - y)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);

    const heard: string[] = [];
    const onChannel: string[] = [];
    const stop = await onB.state.endedMcpSessions.subscribeEndedMcpSessions(
      (digest) => heard.push(digest),
      () => undefined,
    );
    // An older replica listens on the channel by its name: it hears the ends this version records.
    const stopRaw = await b.sql.listen(
      ENDED_SESSIONS_CHANNEL,
      (digest) => onChannel.push(digest),
      () => undefined,
    );
    const now = Date.now();
    await onA.state.endedMcpSessions.endMcpSession("seal-across", now, now + 60_000);
    for (let i = 0; i < 750 && (heard.length === 0 || onChannel.length === 0); i++)
      await new Promise((r) => setTimeout(r, 20));
    await stop();
    await stopRaw();
    expect(heard).toEqual(["seal-across"]);
    expect(onChannel).toEqual(["seal-across"]);
    expect(await onB.state.endedMcpSessions.isMcpSessionEnded("seal-across", now)).toBe(true);
    expect(await onB.state.endedMcpSessions.mcpSessionsEndedSince(now)).toEqual(["seal-across"]);
  });
});
