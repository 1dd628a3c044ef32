import { randomBytes } from "node:crypto";

/** The service name the exec built-in registers under when no `--engine` names another. */
const DEFAULT_EXEC_ENGINE = "trestle";

/** What {@link builtinCallSecrets} needs of a built-in: its name, its arguments and its own environment. */
interface SecretCarrier {
  name: string;
  args: readonly string[];
  env?: Record<string, string>;
}

/** Call secrets made for one start of the built-in services; see {@link builtinCallSecrets}. */
export interface BuiltinCallSecrets<S extends SecretCarrier> {
  /** For `createRouter(config, { builtinSecrets })`: each secret by the service name its built-in registers under. */
  byServiceName: Record<string, string>;
  /** The same services, each with its own secret in `env.TRESTLE_CAPABILITY_SECRET`. */
  services: (S & { env: Record<string, string> })[];
}

/** The service name a built-in registers under: its name, or for exec the engine its `--engine` names. */
export function registeredServiceName(service: Pick<SecretCarrier, "name" | "args">): string {
  if (service.name !== "exec") return service.name;
  let engine = DEFAULT_EXEC_ENGINE;
  service.args.forEach((arg, i) => {
    if (arg === "--engine" && service.args[i + 1] !== undefined) engine = service.args[i + 1] as string;
    else if (arg.startsWith("--engine=")) engine = arg.slice("--engine=".length);
  });
  return engine;
}

/**
 * Makes a fresh random call secret for each built-in service, for this start only. Each built-in receives only
 * its own, in its environment (never its command line, which any user of the machine can read); the router sends
 * each only to its built-in (see `createRouter`'s `builtinSecrets`). So a built-in's port accepts the router and
 * nothing else, and one built-in's secret opens no other.
 */
export function builtinCallSecrets<S extends SecretCarrier>(services: readonly S[]): BuiltinCallSecrets<S> {
  const byServiceName: Record<string, string> = {};
  const withSecrets = services.map((service) => {
    const secret = randomBytes(32).toString("base64url");
    byServiceName[registeredServiceName(service)] = secret;
    return { ...service, env: { ...service.env, TRESTLE_CAPABILITY_SECRET: secret } };
  });
  return { byServiceName, services: withSecrets };
}
