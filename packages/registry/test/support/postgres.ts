import { randomBytes } from "node:crypto";
import pg from "pg";
import { inject } from "vitest";

/** A database of its own for one test file, on the run's PostgreSQL server. */
export interface TestDatabase {
  url: string;
  /** The server's admin URL, for statements outside the test database. */
  adminUrl: string;
  drop(): Promise<void>;
}

/** Runs one statement on the admin database. */
export async function adminQuery(
  adminUrl: string,
  sql: string,
  params: unknown[] = [],
): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    return await client.query(sql, params);
  } finally {
    await client.end();
  }
}

/** Creates an empty database named after `label`, so test files can run in parallel on one server. */
export async function createTestDatabase(label: string): Promise<TestDatabase> {
  const adminUrl = inject("postgresUrl");
  const name = `trestle_${label.replace(/[^a-z0-9]/g, "_")}_${randomBytes(4).toString("hex")}`;
  await adminQuery(adminUrl, `CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    adminUrl,
    async drop() {
      await adminQuery(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
  };
}
