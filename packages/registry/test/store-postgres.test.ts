import { openStore } from "../src/index.js";
import { createTestDatabase } from "./support/postgres.js";
import { describeStoreSuite } from "./support/store-suite.js";

/** Every replica holds the same secrets key: they read each other's forwards. */
const SECRETS_KEY = "store-suite-secrets-key-0123456789abcdef";

// Two stores, each with its own pool and LISTEN connection: two replicas on one PostgreSQL server.
describeStoreSuite("PostgreSQL", async () => {
  const database = await createTestDatabase("suite");
  const primary = await openStore({ databaseUrl: database.url, secretsKeys: [SECRETS_KEY] });
  const secondary = await openStore({ databaseUrl: database.url, secretsKeys: [SECRETS_KEY] });
  return {
    primary,
    secondary,
    async close() {
      await primary.close();
      await secondary.close();
      await database.drop();
    },
  };
});
