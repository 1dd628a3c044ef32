import { readSecretsKeyFile } from "@trestle/registry";
import type { RouterConfig } from "../config.js";

/**
 * The keys that encrypt forwards' upstreams in the store, from the configuration: `secretsKey` or the lines of
 * `secretsKeyFile` (the current key first), then `previousSecretsKeys`. `undefined` when none is configured: the
 * store's own default then applies (the embedded store's key file beside its data directory; none for
 * PostgreSQL, which then refuses forwards with secrets).
 *
 * @throws TrestleError `FailedPrecondition` or `InvalidArgument` when the key file is open to other users, holds no
 * key or cannot be read.
 */
export async function configuredSecretsKeys(
  config: Pick<RouterConfig, "secretsKey" | "secretsKeyFile" | "previousSecretsKeys">,
): Promise<string[] | undefined> {
  const current =
    config.secretsKey !== undefined
      ? [config.secretsKey]
      : config.secretsKeyFile !== undefined
        ? await readSecretsKeyFile(config.secretsKeyFile)
        : undefined;
  return current === undefined ? undefined : [...current, ...config.previousSecretsKeys];
}
