import { parseNetwork } from "@trestle/core/address-ranges";
import { z } from "zod";

/**
 * The configuration keys of the store's secrets and of registration: their schemas (spread into the router's
 * config schema, so the reference documents them with the rest), where they come from, and the checks that span
 * several keys.
 */

/** A list of IP networks (`10.0.0.0/8`, `fd00::/8`, `127.0.0.1`), each checked. */
const networksSchema = z.array(
  z.string().refine((text) => parseNetwork(text) !== undefined, {
    message: "must be an IP network such as 10.0.0.0/8, fd00::/8 or 127.0.0.1",
  }),
);

/** The shortest secrets key accepted (`openssl rand -base64 32` makes 44 characters). */
const SECRETS_KEY_MIN_LENGTH = 32;
const secretsKeySchema = z
  .string()
  .min(SECRETS_KEY_MIN_LENGTH, `a secrets key must have at least ${SECRETS_KEY_MIN_LENGTH} characters`);

/** Registration settings of one service (`services.<name>`). */
export const serviceRegistrationFields = {
  principal: z
    .string()
    .min(1)
    .optional()
    .describe(
      "The token name (principal) this service name belongs to: only it, or an admin, may register instances under it",
    ),
  allowedNetworks: networksSchema
    .optional()
    .describe(
      'Private, loopback or other special-purpose networks this service\'s non-admin registrations may use (besides registrationAllowedNetworks), e.g. ["10.0.0.0/8"]',
    ),
};

/** The router's keys for registration addresses and the store's secrets key. */
export const securityConfigFields = {
  registrationAllowedNetworks: networksSchema
    .default([])
    .describe(
      "Private, loopback, link-local or other special-purpose networks where non-admin registrations may put a service (e.g. 10.0.0.0/8); by default they may not (a router without tokens allows every address)",
    ),
  secretsKey: secretsKeySchema
    .optional()
    .describe(
      "Key that encrypts forwards' upstreams (arguments, environment, headers) in the store, at least 32 characters (openssl rand -base64 32); the same on every replica. Default with the embedded store: a key file beside the data directory (<dataDir>.key), made at first start",
    ),
  secretsKeyFile: z
    .string()
    .min(1)
    .optional()
    .describe(
      "File holding the secrets key (mode 0600; one key per line: the current one first, older ones after it), instead of secretsKey",
    ),
  previousSecretsKeys: z
    .array(secretsKeySchema)
    .default([])
    .describe(
      "Older secrets keys, to read forwards they encrypted while a rotation encrypts them again with secretsKey",
    ),
};

/** How each of {@link securityConfigFields} is set from the environment. */
export const securityConfigSources: Record<keyof typeof securityConfigFields, { env: string }> = {
  registrationAllowedNetworks: { env: "TRESTLE_REGISTRATION_ALLOWED_NETWORKS" },
  secretsKey: { env: "TRESTLE_SECRETS_KEY" },
  secretsKeyFile: { env: "TRESTLE_SECRETS_KEY_FILE" },
  previousSecretsKeys: { env: "TRESTLE_PREVIOUS_SECRETS_KEYS" },
};

/** What {@link securityConfigProblems} reads of a validated configuration. */
export interface SecurityConfig {
  secretsKey?: string | undefined;
  secretsKeyFile?: string | undefined;
  previousSecretsKeys: readonly string[];
  tokens: readonly { name: string }[];
  services: Readonly<Record<string, { principal?: string | undefined }>>;
}

/**
 * Problems that span several keys, as `path: message` (never quoting a secret): `secretsKey` and `secretsKeyFile`
 * both given, previous keys without a current one, a service bound to a principal no token (nor the built-ins,
 * `builtinPrincipal`) has.
 */
export function securityConfigProblems(config: SecurityConfig, builtinPrincipal: string): string[] {
  const problems: string[] = [];
  if (config.secretsKey !== undefined && config.secretsKeyFile !== undefined)
    problems.push("secretsKeyFile: give secretsKey or secretsKeyFile, not both");
  if (
    config.previousSecretsKeys.length > 0 &&
    config.secretsKey === undefined &&
    config.secretsKeyFile === undefined
  )
    problems.push(
      "previousSecretsKeys: previous secrets keys need a current one (secretsKey or secretsKeyFile)",
    );
  const principals = new Set([...config.tokens.map((t) => t.name), builtinPrincipal]);
  for (const [name, service] of Object.entries(config.services)) {
    if (service.principal !== undefined && !principals.has(service.principal))
      problems.push(`services.${name}.principal: no token is named '${service.principal}'`);
  }
  return problems;
}
