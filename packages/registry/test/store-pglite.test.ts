import { openStore } from "../src/index.js";
import { describeStoreSuite } from "./support/store-suite.js";

// One embedded database in memory; two registries on it stand for two replicas of one process's store.
describeStoreSuite("PGlite (in memory)", async () => {
  const store = await openStore({ memory: true });
  return { primary: store, secondary: store, close: () => store.close() };
});
