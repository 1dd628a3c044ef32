import { Code, TrestleError } from "@trestle/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openThrowawayDatabase } from "../src/embedded-store.js";
import { createRegistry, type Registry } from "../src/index.js";
import { silentLogger } from "../src/logger.js";
import { applyRegistryMigrations } from "../src/migrations.js";
import { sealStoredForwards } from "../src/seal-stored-forwards.js";
import { withSealedForwards } from "../src/sealing-store.js";
import { createSecretsKeyring, generateSecretsKey, secretsKeyId } from "../src/secrets-keyring.js";
import type { SqlClient } from "../src/sql-client.js";
import { createSqlStore } from "../src/sql-store.js";

const CANARY = "forward-secret-canary-5e1f";
const OLD_KEY = "old-secrets-key-0123456789abcdefghijklmnop";
const NEW_KEY = "new-secrets-key-0123456789abcdefghijklmnop";

async function rejection(promise: Promise<unknown>): Promise<TrestleError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof TrestleError) return error;
    throw error;
  }
  throw new Error("expected a rejection");
}

describe("the secrets keyring", () => {
  it("seals for a context and opens only there, with the key that sealed it", () => {
    const keyring = createSecretsKeyring([NEW_KEY, OLD_KEY]);
    const sealed = keyring.seal(CANARY, "forward:a");
    expect(JSON.stringify(sealed)).not.toContain(CANARY);
    expect(sealed).toMatchObject({ version: 1, algorithm: "aes-256-gcm", keyId: secretsKeyId(NEW_KEY) });
    expect(keyring.open(sealed, "forward:a")).toBe(CANARY);
    // Sealing twice gives two ciphertexts (a fresh nonce each time).
    expect(keyring.seal(CANARY, "forward:a").ciphertext).not.toBe(sealed.ciphertext);

    expect(() => keyring.open(sealed, "forward:b")).toThrow(expect.objectContaining({ code: Code.DataLoss }));
    const altered = { ...sealed, ciphertext: `A${sealed.ciphertext.slice(1)}` };
    expect(() => keyring.open(altered, "forward:a")).toThrow(
      expect.objectContaining({ code: Code.DataLoss }),
    );
    const shortTag = { ...sealed, tag: sealed.tag.slice(0, 6) };
    expect(() => keyring.open(shortTag, "forward:a")).toThrow(
      expect.objectContaining({ code: Code.DataLoss }),
    );

    // An older key opens what it sealed; a keyring without it says which key it lacks.
    const old = createSecretsKeyring([OLD_KEY]).seal(CANARY, "forward:a");
    expect(keyring.open(old, "forward:a")).toBe(CANARY);
    const lacking = createSecretsKeyring([OLD_KEY]);
    expect(() => lacking.open(sealed, "forward:a")).toThrow(
      expect.objectContaining({
        code: Code.FailedPrecondition,
        rawMessage: expect.stringContaining(sealed.keyId),
      }),
    );
  });

  it("refuses a short key without quoting it, and derives distinct ids that reveal no key", () => {
    let refused: unknown;
    try {
      createSecretsKeyring(["short-key-canary"]);
    } catch (error) {
      refused = error;
    }
    expect(refused).toMatchObject({ code: Code.InvalidArgument });
    expect((refused as TrestleError).rawMessage).not.toContain("short-key-canary");
    expect(() => createSecretsKeyring([])).toThrow(expect.objectContaining({ code: Code.InvalidArgument }));
    expect(secretsKeyId(OLD_KEY)).toMatch(/^[0-9a-f]{16}$/);
    expect(secretsKeyId(OLD_KEY)).not.toBe(secretsKeyId(NEW_KEY));
    expect(generateSecretsKey()).not.toBe(generateSecretsKey());
    expect(generateSecretsKey().length).toBeGreaterThanOrEqual(32);
  });
});

describe("forwards' upstreams at rest", () => {
  let client: SqlClient;
  const registries: Registry[] = [];

  beforeAll(async () => {
    client = await openThrowawayDatabase();
    await applyRegistryMigrations(client);
  }, 90_000);

  afterAll(async () => {
    await Promise.all(registries.map((r) => r.close()));
    await client?.close();
  });

  async function registryWith(keys: string[] | undefined): Promise<Registry> {
    const keyring = keys === undefined ? undefined : createSecretsKeyring(keys);
    const registry = await createRegistry({ store: withSealedForwards(createSqlStore(client), keyring) });
    registries.push(registry);
    return registry;
  }

  async function storedDocuments(): Promise<{ name: string; text: string }[]> {
    return client.query<{ name: string; text: string }>(
      "SELECT name, document::text AS text FROM trestle_catalog_entries WHERE kind = 'forward' ORDER BY name",
    );
  }

  it("keeps every upstream encrypted in the store, and in clear in the catalog", async () => {
    const registry = await registryWith([OLD_KEY]);
    const stdio = {
      kind: "stdio",
      command: "/opt/servers/run",
      args: ["--token", `${CANARY}-argv`],
      env: { API_KEY: `${CANARY}-env` },
    };
    const http = {
      kind: "http",
      url: `https://mcp.example/mcp?key=${CANARY}-query`,
      headers: { authorization: `Bearer ${CANARY}-header` },
      upstreamAuth: {
        tokenExchange: {
          tokenEndpoint: "https://idp.example/token",
          clientId: "trestle",
          clientSecret: `${CANARY}-client-secret`,
          audience: "payments",
        },
      },
    };
    const a2a = {
      kind: "a2a",
      url: "https://agent.example/",
      headers: { "x-api-key": `${CANARY}-a2a` },
      upstreamAuth: { static: { value: `Bearer ${CANARY}-a2a-static` } },
    };
    await registry.catalog.addForward({ name: "local", upstream: stdio });
    await registry.catalog.addForward({ name: "remote", upstream: http });
    await registry.catalog.addForward({ name: "agent", upstream: a2a });
    await registry.catalog.updateForward("", "local", (current) => ({
      ...current,
      upstream: { ...stdio, env: { API_KEY: `${CANARY}-env-2` } },
    }));

    const documents = await storedDocuments();
    expect(documents.map((d) => d.name)).toEqual(["agent", "local", "remote"]);
    for (const { text } of documents) {
      expect(text).not.toContain(CANARY);
      expect(text).not.toContain("/opt/servers/run");
      expect(JSON.parse(text).upstream.sealed.keyId).toBe(secretsKeyId(OLD_KEY));
    }
    expect(registry.catalog.getForward("", "local")?.upstream).toEqual({
      ...stdio,
      env: { API_KEY: `${CANARY}-env-2` },
    });
    expect(registry.catalog.getForward("", "remote")?.upstream).toEqual(http);
    // Another process on the same store (a restart, a replica) reads them in clear too.
    const other = await registryWith([OLD_KEY]);
    expect(other.catalog.getForward("", "agent")?.upstream).toEqual(a2a);
  });

  it("does not open an upstream copied onto another forward", async () => {
    const registry = await registryWith([OLD_KEY]);
    await registry.catalog.addForward({
      name: "victim",
      upstream: { kind: "http", url: "https://a.example/" },
    });
    await client.query(
      `UPDATE trestle_catalog_entries SET document = jsonb_set(document, '{upstream}',
         (SELECT document -> 'upstream' FROM trestle_catalog_entries WHERE kind = 'forward' AND name = 'remote'))
       WHERE kind = 'forward' AND name = 'victim'`,
    );
    const refused = await rejection(registryWith([OLD_KEY]));
    expect(refused.code).toBe(Code.DataLoss);
    expect(refused.rawMessage).toContain("'victim'");
    expect(refused.rawMessage).not.toContain(CANARY);
    // Its removal still works: the way out for a forward that cannot be decrypted.
    expect((await registry.catalog.removeForward("", "victim")).upstream).toEqual({ kind: "http" });
  });

  it("encrypts forwards stored in clear when the store opens, and again with a new key on rotation", async () => {
    await client.query(
      `INSERT INTO trestle_catalog_entries (kind, namespace, key, name, id, document, version, created_at, updated_at)
       VALUES ('forward', '', 'legacy', 'legacy', 'legacy-id', $1::text::jsonb, nextval('trestle_change_version'), 0, 0)`,
      [
        JSON.stringify({
          id: "legacy-id",
          namespace: "",
          name: "legacy",
          upstream: { kind: "stdio", command: "node", env: { TOKEN: `${CANARY}-legacy` } },
        }),
      ],
    );
    expect((await storedDocuments()).find((d) => d.name === "legacy")?.text).toContain(CANARY);

    await sealStoredForwards(client, createSecretsKeyring([OLD_KEY]), silentLogger);
    expect((await storedDocuments()).every((d) => !d.text.includes(CANARY))).toBe(true);

    // Rotation: the new key first, the old one kept to read; every forward is sealed again with the new key.
    await sealStoredForwards(client, createSecretsKeyring([NEW_KEY, OLD_KEY]), silentLogger);
    const keyIds = new Set((await storedDocuments()).map((d) => JSON.parse(d.text).upstream.sealed.keyId));
    expect([...keyIds]).toEqual([secretsKeyId(NEW_KEY)]);
    const rotated = await registryWith([NEW_KEY]);
    expect(rotated.catalog.getForward("", "legacy")?.upstream).toEqual({
      kind: "stdio",
      command: "node",
      env: { TOKEN: `${CANARY}-legacy` },
    });

    // A router with only the old key (or none) refuses to start, naming the key it lacks.
    for (const keys of [[OLD_KEY], undefined]) {
      const refused = await rejection(
        sealStoredForwards(client, keys && createSecretsKeyring(keys), silentLogger),
      );
      expect(refused.code).toBe(Code.FailedPrecondition);
      expect(refused.rawMessage).toContain(secretsKeyId(NEW_KEY));
    }
  });

  it("without a key, stores forwards without secrets in clear and refuses those with", async () => {
    await client.query("DELETE FROM trestle_catalog_entries WHERE kind = 'forward'");
    const keyless = await registryWith(undefined);
    await keyless.catalog.addForward({
      name: "plain",
      upstream: { kind: "http", url: "https://p.example/" },
    });
    const refused = await rejection(
      keyless.catalog.addForward({
        name: "secretive",
        upstream: { kind: "stdio", command: "node", env: { TOKEN: CANARY } },
      }),
    );
    expect(refused.code).toBe(Code.FailedPrecondition);
    expect(refused.rawMessage).toMatch(/no secrets key.*secretsKey/);
    expect(refused.rawMessage).not.toContain(CANARY);
    // An upstream credential alone is a secret too.
    const credential = await rejection(
      keyless.catalog.addForward({
        name: "exchanging",
        upstream: {
          kind: "http",
          url: "https://x.example/",
          upstreamAuth: { static: { value: `Bearer ${CANARY}` } },
        },
      }),
    );
    expect(credential.code).toBe(Code.FailedPrecondition);
    expect(credential.rawMessage).not.toContain(CANARY);
    expect((await storedDocuments()).map((d) => d.name)).toEqual(["plain"]);
    await sealStoredForwards(client, undefined, silentLogger);

    // A store holding a forward with secrets in clear cannot open without a key.
    await client.query(
      `UPDATE trestle_catalog_entries SET document = jsonb_set(document, '{upstream,headers}', '{"authorization":"x"}')
       WHERE kind = 'forward' AND name = 'plain'`,
    );
    const unprotected = await rejection(sealStoredForwards(client, undefined, silentLogger));
    expect(unprotected.code).toBe(Code.FailedPrecondition);
    expect(unprotected.rawMessage).toContain("'plain'");
  });
});
