import { Code } from "@trestle/core";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRegistry, openStore } from "../src/index.js";
import { secretsKeyId } from "../src/secrets-keyring.js";
import { createTestDatabase, type TestDatabase } from "./support/postgres.js";

const KEY = "postgres-secrets-key-0123456789abcdefghij";
const CANARY = "pg-forward-canary-2b7e";

describe("forward secrets on a PostgreSQL store (replicas)", () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase("forward_secrets");
  });

  afterAll(async () => {
    await database?.drop();
  });

  it("keeps them encrypted in the database; a replica without the key refuses to start and names it", async () => {
    const store = await openStore({ databaseUrl: database.url, secretsKeys: [KEY] });
    const registry = await createRegistry({ store });
    await registry.catalog.addForward({
      name: "remote",
      upstream: { kind: "http", url: "https://mcp.example/", headers: { authorization: CANARY } },
    });
    await registry.close();
    await store.close();

    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ text: string }>(
        "SELECT document::text AS text FROM trestle_catalog_entries WHERE kind = 'forward'",
      );
      expect(rows).toHaveLength(1);
      expect(rows[0]?.text).not.toContain(CANARY);
    } finally {
      await client.end();
    }

    await expect(openStore({ databaseUrl: database.url })).rejects.toMatchObject({
      code: Code.FailedPrecondition,
      rawMessage: expect.stringContaining(secretsKeyId(KEY)),
    });
    const replica = await openStore({ databaseUrl: database.url, secretsKeys: [KEY] });
    try {
      const reader = await createRegistry({ store: replica });
      expect(reader.catalog.getForward("", "remote")?.upstream).toMatchObject({
        headers: { authorization: CANARY },
      });
      await reader.close();
    } finally {
      await replica.close();
    }
  });
});
