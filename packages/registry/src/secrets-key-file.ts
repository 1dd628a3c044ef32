import { open, readFile, stat } from "node:fs/promises";
import { resolve } from "node:path";
import { Code, TrestleError } from "@trestle/core";
import { checkPrivate, PRIVATE_FILE_MODE } from "./private-directory.js";
import { generateSecretsKey } from "./secrets-keyring.js";

/**
 * Where the embedded store keeps the secrets key it made itself: beside its data directory, never inside it, so
 * that a copy of the data directory alone (a backup, a support bundle) does not carry the key that opens it.
 * `.trestle/data` → `.trestle/data.key`.
 */
export function secretsKeyFileBeside(dataDir: string): string {
  return `${resolve(dataDir)}.key`;
}

/**
 * Reads a secrets key file: one key per line, the current one first and older ones (kept to read what they
 * sealed) after it; blank lines and lines starting with `#` are skipped. The file must be the router's alone.
 *
 * @throws TrestleError `FailedPrecondition` when it is open to other users, owned by another, or holds no key;
 * `InvalidArgument` when it cannot be read. Messages never quote the file's contents.
 */
export async function readSecretsKeyFile(path: string): Promise<string[]> {
  const file = resolve(path);
  let text: string;
  try {
    checkPrivate(file, await stat(file), "secrets key file");
    text = await readFile(file, "utf8");
  } catch (error) {
    if (error instanceof TrestleError) throw error;
    throw new TrestleError(
      `Cannot read the secrets key file ${file}: ${(error as NodeJS.ErrnoException).code ?? "unreadable"}`,
      Code.InvalidArgument,
      { cause: error },
    );
  }
  const keys = text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"));
  if (keys.length === 0)
    throw new TrestleError(`The secrets key file ${file} holds no key`, Code.FailedPrecondition);
  return keys;
}

/**
 * Reads the secrets key file at `path`, or makes it first (mode 0600, one new random key) when there is none:
 * what keeps the embedded store's forward secrets encrypted with no set-up. Made exclusively, so a file that
 * appears meanwhile is read, never overwritten.
 *
 * @throws TrestleError as {@link readSecretsKeyFile}.
 */
export async function readOrCreateSecretsKeyFile(path: string): Promise<string[]> {
  const file = resolve(path);
  try {
    const handle = await open(file, "wx", PRIVATE_FILE_MODE);
    try {
      await handle.writeFile(`${generateSecretsKey()}\n`);
    } finally {
      await handle.close();
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") {
      throw new TrestleError(
        `Cannot create the secrets key file ${file}: ${(error as NodeJS.ErrnoException).code ?? "failed"}`,
        Code.FailedPrecondition,
        { cause: error },
      );
    }
  }
  return readSecretsKeyFile(file);
}
