import { PGlite } from "@electric-sql/pglite";
import { Code, TrestleError } from "@trestle/core";
import { describe, expect, it } from "vitest";
import { applyMigrations, MIGRATIONS } from "../src/migrations.js";
import { createPgliteClient } from "../src/pglite-client.js";
import { createSqlStore } from "../src/sql-store.js";

describe("migration 3: registrations bound to their principal", () => {
  it("leaves a registration made before it unbound, and its next registration claims it", async () => {
    const client = createPgliteClient(await PGlite.create());
    try {
      await applyMigrations(
        client,
        MIGRATIONS.filter((m) => m.version < 3),
      );
      await client.query(
        `INSERT INTO trestle_services (id, endpoint, target, health, health_changed_at, registered_at, last_seen_at, version)
         VALUES ('old-1', 'e', '{"serviceName":"legacy","serviceType":"tool-invoker","host":"10.0.0.1","port":1}'::jsonb,
                 'healthy', 0, 0, 0, nextval('trestle_change_version'))`,
      );
      expect(
        await applyMigrations(
          client,
          MIGRATIONS.filter((m) => m.version <= 3),
        ),
      ).toEqual([3]);

      const store = createSqlStore(client);
      const [before] = await store.fetchServices(["old-1"]);
      expect(before?.registeredBy).toBeUndefined();
      await store.recordHeartbeat("old-1", 1, false, { principal: "anyone", admin: false });

      const input = (principal: string) => ({
        requestedId: "old-1",
        newId: "unused",
        target: { serviceName: "legacy", serviceType: "tool-invoker" as const, host: "10.0.0.2", port: 2 },
        endpoint: "e2",
        actor: { principal, admin: false },
      });
      const claimed = await store.registerService(input("capabilities"), 2);
      expect(claimed.service.registeredBy).toBe("capabilities");
      const refused = await store.registerService(input("someone-else"), 3).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(TrestleError);
      expect((refused as TrestleError).code).toBe(Code.PermissionDenied);
    } finally {
      await client.close();
    }
  });
});
