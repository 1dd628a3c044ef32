import { PGlite } from "@electric-sql/pglite";
import { Code, TrestleError } from "@trestle/core";
import { describe, expect, it } from "vitest";
import { openThrowawayDatabase } from "../src/embedded-store.js";
import { applyRegistryMigrations, MIGRATIONS } from "../src/migrations.js";
import { createPgliteClient } from "../src/pglite-client.js";
import { createSqlStore } from "../src/sql-store.js";

describe("migration 3: registrations bound to their principal", () => {
  it("leaves a registration made before it unbound, and its next registration claims it", async () => {
    const client = createPgliteClient(await PGlite.create());
    try {
      await applyRegistryMigrations(
        client,
        MIGRATIONS.filter((m) => m.version < 3),
      );
      await client.query(
        `INSERT INTO trestle_services (id, endpoint, target, health, health_changed_at, registered_at, last_seen_at, version)
         VALUES ('old-1', 'e', '{"serviceName":"legacy","serviceType":"tool-invoker","host":"10.0.0.1","port":1}'::jsonb,
                 'healthy', 0, 0, 0, nextval('trestle_change_version'))`,
      );
      expect(
        await applyRegistryMigrations(
          client,
          MIGRATIONS.filter((m) => m.version <= 3),
        ),
      ).toEqual([3]);
      await applyRegistryMigrations(client);

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

describe("migration 8: service names kept by their owner", () => {
  it("gives each name registered before it to the principal of its earliest bound instance, for good", async () => {
    const client = await openThrowawayDatabase();
    try {
      await applyRegistryMigrations(
        client,
        MIGRATIONS.filter((m) => m.version < 8),
      );
      const row = (id: string, name: string, owner: string | null, at: number) =>
        client.query(
          `INSERT INTO trestle_services (id, endpoint, target, health, health_changed_at, registered_at, last_seen_at, version, owner)
           VALUES ($1, $1, $2::text::jsonb, 'healthy', 0, $3, $3, nextval('trestle_change_version'), $4)`,
          [
            id,
            JSON.stringify({ serviceName: name, serviceType: "tool-invoker", host: "10.0.0.1", port: at }),
            at,
            owner,
          ],
        );
      await row("w-admin-later", "weather", "operator", 5);
      await row("w-first", "weather", "weather-team", 2);
      await row("legacy", "unbound", null, 1);
      expect(await applyRegistryMigrations(client)).toEqual([8]);
      expect(
        await client.query("SELECT service_name, owner FROM trestle_service_owners ORDER BY service_name"),
      ).toEqual([{ service_name: "weather", owner: "weather-team" }]);

      // Its instances gone, the name is still weather-team's.
      const store = createSqlStore(client);
      await store.removeUnseen(Number.MAX_SAFE_INTEGER);
      const input = (principal: string, serviceName: string) => ({
        newId: `new-${principal}-${serviceName}`,
        target: { serviceName, serviceType: "tool-invoker" as const, host: "10.0.0.3", port: 3 },
        endpoint: `${principal}-${serviceName}`,
        actor: { principal, admin: false },
      });
      const refused = await store.registerService(input("intruder", "weather"), 10).catch((e: unknown) => e);
      expect((refused as TrestleError).code).toBe(Code.PermissionDenied);
      expect((await store.registerService(input("weather-team", "weather"), 11)).created).toBe(true);
      // A name no bound instance held is claimed by its next registrant.
      expect((await store.registerService(input("newcomer", "unbound"), 12)).service.registeredBy).toBe(
        "newcomer",
      );
    } finally {
      await client.close();
    }
  }, 90_000);
});
