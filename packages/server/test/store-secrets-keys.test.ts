import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Code } from "@trestle/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { configuredSecretsKeys } from "../src/root/store-secrets-keys.js";

const CURRENT = "current-secrets-key-0123456789abcdefgh";
const OLDER = "older-secrets-key-0123456789abcdefghij";
const PREVIOUS = "previous-secrets-key-0123456789abcdef";

describe("the store's secrets keys from the configuration", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "trestle-secrets-keys-"));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("puts the current key first, then the key file's older lines, then previousSecretsKeys", async () => {
    expect(await configuredSecretsKeys({ previousSecretsKeys: [] })).toBeUndefined();
    expect(await configuredSecretsKeys({ secretsKey: CURRENT, previousSecretsKeys: [PREVIOUS] })).toEqual([
      CURRENT,
      PREVIOUS,
    ]);
    const file = join(dir, "keys");
    await writeFile(file, `# rotated on 2026-01-01\n${CURRENT}\n\n${OLDER}\n`, { mode: 0o600 });
    expect(await configuredSecretsKeys({ secretsKeyFile: file, previousSecretsKeys: [PREVIOUS] })).toEqual([
      CURRENT,
      OLDER,
      PREVIOUS,
    ]);
  });

  it("refuses a key file other users may read, without quoting it", async () => {
    const file = join(dir, "open-keys");
    await writeFile(file, `${CURRENT}\n`, { mode: 0o600 });
    await chmod(file, 0o644);
    const refused = configuredSecretsKeys({ secretsKeyFile: file, previousSecretsKeys: [] });
    await expect(refused).rejects.toMatchObject({
      code: Code.FailedPrecondition,
      rawMessage: expect.stringContaining(`chmod 600 ${file}`),
    });
    await expect(refused).rejects.not.toMatchObject({ rawMessage: expect.stringContaining(CURRENT) });
  });
});
