import { startPostgresCluster } from "@trestle/test-support/postgres";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    /** Admin URL of the PostgreSQL server the tests use; each test file creates its own database on it. */
    postgresUrl: string;
  }
}

/**
 * Starts a throw-away PostgreSQL cluster for the test run (or uses TRESTLE_TEST_DATABASE_URL) and provides its
 * admin URL as `postgresUrl`. The store tests never skip PostgreSQL: without a server they fail.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const given = process.env.TRESTLE_TEST_DATABASE_URL;
  if (given) {
    project.provide("postgresUrl", given);
    return async () => {};
  }
  // Every test file of the run opens its pools on this one server.
  const cluster = await startPostgresCluster({ maxConnections: 300 });
  project.provide("postgresUrl", cluster.url);
  return () => cluster.destroy();
}
