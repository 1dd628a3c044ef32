import { openStore } from "../src/index.js";
import { createTestDatabase } from "./support/postgres.js";
import { describeStoreSuite } from "./support/store-suite.js";

// Two stores, each with its own pool and LISTEN connection: two replicas on one PostgreSQL server.
describeStoreSuite("PostgreSQL", async () => {
  const database = await createTestDatabase("suite");
  const primary = await openStore({ databaseUrl: database.url });
  const secondary = await openStore({ databaseUrl: database.url });
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
