import { configSources, SECRET_SETTINGS } from "./config.js";

/**
 * The variables of the router's environment that hold secrets or name their files: the secret settings
 * (`TRESTLE_TOKENS`, `TRESTLE_SESSION_SECRET`, `TRESTLE_DATABASE_URL`, `TRESTLE_SERVICES` with its call secrets,
 * and their `_FILE` forms), the CLI's client token, and a capability's own credentials should the router have been
 * started with them.
 */
export const ROUTER_SECRET_VARIABLES: readonly string[] = [
  ...SECRET_SETTINGS.flatMap((key) => {
    const variable = configSources[key]?.env as string;
    return [variable, `${variable}_FILE`];
  }),
  "TRESTLE_TOKEN",
  "TRESTLE_ROUTER_TOKEN",
  "TRESTLE_CAPABILITY_SECRET",
];

/**
 * Removes every {@link ROUTER_SECRET_VARIABLES} variable from `env` (the router's `process.env`, once its
 * configuration is read and before it starts any child) and returns those it removed, for the router's own
 * workers. What a process was started with stays readable in its `/proc/<pid>/environ` whatever it does later:
 * the children the router starts also run where they cannot see the router's process at all.
 */
export function takeSecretVariables(env: NodeJS.ProcessEnv): Record<string, string> {
  const taken: Record<string, string> = {};
  for (const name of ROUTER_SECRET_VARIABLES) {
    const value = env[name];
    if (value !== undefined) taken[name] = value;
    delete env[name];
  }
  return taken;
}
