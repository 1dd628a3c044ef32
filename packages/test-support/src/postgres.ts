/**
 * PostgreSQL helpers of Trestle's tests, apart from the main entry point so that tests without a database never
 * load `pg`.
 *
 * @packageDocumentation
 */
export {
  type PostgresCluster,
  type PostgresClusterOptions,
  startPostgresCluster,
} from "./postgres-cluster.js";
