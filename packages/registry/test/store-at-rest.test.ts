import { chmod, mkdtemp, readdir, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Code, TrestleError } from "@trestle/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openEmbeddedDatabase } from "../src/embedded-store.js";
import { createRegistry, openStore } from "../src/index.js";

const CANARY = "at-rest-canary-93c1b7";

/** Every file and directory under `root`, with its permission bits. */
async function modesUnder(root: string): Promise<{ path: string; mode: number; directory: boolean }[]> {
  const found: { path: string; mode: number; directory: boolean }[] = [];
  for (const entry of await readdir(root, { withFileTypes: true, recursive: true })) {
    const path = join(entry.parentPath, entry.name);
    if (entry.isSymbolicLink()) continue;
    found.push({ path, mode: (await stat(path)).mode & 0o777, directory: entry.isDirectory() });
  }
  return found;
}

async function filesHolding(root: string, text: string): Promise<string[]> {
  const hits: string[] = [];
  for (const entry of await readdir(root, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    if ((await readFile(path)).includes(text)) hits.push(path.slice(root.length));
  }
  return hits;
}

async function rejection(promise: Promise<unknown>): Promise<TrestleError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof TrestleError) return error;
    throw error;
  }
  throw new Error("expected a rejection");
}

/**
 * The embedded store on disk: one data directory, created once (PGlite takes seconds to create one), used by
 * every test in turn.
 */
describe("the embedded store's files at rest", () => {
  let root: string;
  let dataDir: string;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), "trestle-at-rest-"));
    // Open to everyone, as /tmp or a home directory may be: what protects the store must be its own modes.
    await chmod(root, 0o755);
    dataDir = join(root, "state", "data");
  });

  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it("creates the data directory (and its missing parent) 0700 with every file 0600, WAL segments written later included, and its key file beside it 0600", async () => {
    const store = await openStore({ dataDir });
    await store.close();
    expect((await stat(join(root, "state"))).mode & 0o777).toBe(0o700);
    expect((await stat(join(root, "state", "data.key"))).mode & 0o777).toBe(0o600);
    expect((await readFile(join(root, "state", "data.key"), "utf8")).trim().length).toBeGreaterThanOrEqual(
      32,
    );

    // More than a WAL segment (16 MiB) of writes, so PostgreSQL creates segments while it runs.
    const client = await openEmbeddedDatabase(dataDir);
    const segmentsBefore = await readdir(join(dataDir, "pg_wal"));
    await client.exec("CREATE TABLE wal_filler (v text)");
    for (let i = 0; i < 4; i++)
      await client.query(
        "INSERT INTO wal_filler SELECT repeat(md5(random()::text), 40) FROM generate_series(1, 4000)",
      );
    await client.exec("CHECKPOINT");
    const segmentsAfter = await readdir(join(dataDir, "pg_wal"));
    expect(segmentsAfter.filter((s) => !segmentsBefore.includes(s)).length).toBeGreaterThan(0);
    await client.exec("DROP TABLE wal_filler");
    await client.close();

    const open = (await modesUnder(dataDir)).filter((e) => e.mode !== (e.directory ? 0o700 : 0o600));
    expect(open).toEqual([]);
    expect((await stat(dataDir)).mode & 0o777).toBe(0o700);
  }, 120_000);

  it("refuses a data directory, or a key file, open to other users, and names the fix", async () => {
    for (const mode of [0o755, 0o750, 0o701]) {
      await chmod(dataDir, mode);
      const refused = await rejection(openStore({ dataDir }));
      expect(refused.code).toBe(Code.FailedPrecondition);
      expect(refused.rawMessage).toContain(dataDir);
      expect(refused.rawMessage).toContain(`chmod -R go-rwx ${dataDir}`);
    }
    await chmod(dataDir, 0o700);

    const keyFile = join(root, "state", "data.key");
    await chmod(keyFile, 0o644);
    const refused = await rejection(openStore({ dataDir }));
    expect(refused.code).toBe(Code.FailedPrecondition);
    expect(refused.rawMessage).toContain(`chmod 600 ${keyFile}`);
    await chmod(keyFile, 0o600);
  }, 60_000);

  it("makes private again a file an older version left open, and encrypts a forward it left in clear, leaving no clear copy in the table's files", async () => {
    // What an older router left: a world-readable file, and a forward whose environment is in clear.
    const client = await openEmbeddedDatabase(dataDir);
    await client.query(
      `INSERT INTO trestle_catalog_entries (kind, namespace, key, name, id, document, version, created_at, updated_at)
       VALUES ('forward', '', 'old', 'old', 'old-id', $1::text::jsonb, nextval('trestle_change_version'), 0, 0)`,
      [
        JSON.stringify({
          id: "old-id",
          namespace: "",
          name: "old",
          upstream: { kind: "stdio", command: "node", env: { TOKEN: CANARY } },
        }),
      ],
    );
    await client.exec("CHECKPOINT");
    await client.close();
    await chmod(join(dataDir, "PG_VERSION"), 0o666);
    expect((await filesHolding(join(dataDir, "base"), CANARY)).length).toBeGreaterThan(0);

    const store = await openStore({ dataDir });
    try {
      expect((await stat(join(dataDir, "PG_VERSION"))).mode & 0o777).toBe(0o600);
      const registry = await createRegistry({ store });
      expect(registry.catalog.getForward("", "old")?.upstream).toEqual({
        kind: "stdio",
        command: "node",
        env: { TOKEN: CANARY },
      });
      await registry.close();
    } finally {
      await store.close();
    }
    // The table was rewritten: its files (and every other relation's) hold no clear copy.
    expect(await filesHolding(join(dataDir, "base"), CANARY)).toEqual([]);
  }, 120_000);
});
