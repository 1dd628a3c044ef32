/**
 * Loading the router's configuration: a YAML or JSON file, environment variables (and the `_FILE` variants of
 * secret settings), command-line flags, each text turned into the value its key expects, merged in that order of
 * precedence and validated against {@link routerConfigSchema}.
 */
import { readFileSync } from "node:fs";
import { Code, TrestleError } from "@trestle/core";
import { parse as parseYaml } from "yaml";
import type { z } from "zod";
import {
  BUILTIN_PRINCIPAL,
  configProblems,
  configSources,
  type RouterConfig,
  routerConfigSchema,
  SECRET_SETTINGS,
} from "./config.js";
import { identityConfigProblems, policyConfigProblems } from "./config-identity.js";
import { securityConfigProblems } from "./config-security.js";
import { withTransportFlags } from "./config-transports.js";

/** Reads a secret setting's file: its whole text, less a final line break. */
function readSecretFile(variable: string, path: string): string {
  try {
    return readFileSync(path, "utf8").replace(/\r?\n$/, "");
  } catch (error) {
    throw new TrestleError(
      `environment variable ${variable}_FILE: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? "error"})`,
      Code.InvalidArgument,
    );
  }
}

/** The zod type under optional/default wrappers, to know how to parse a text value. */
function baseKind(schema: z.ZodType): string {
  let s: z.ZodType = schema;
  for (;;) {
    const def = (s as unknown as { def: { type: string; innerType?: z.ZodType; in?: z.ZodType } }).def;
    if ((def.type === "optional" || def.type === "default") && def.innerType) s = def.innerType;
    else if (def.type === "pipe" && def.in) s = def.in;
    else return def.type;
  }
}

/** Turns an environment or flag text into the value its key expects. */
function fromText(key: string, text: string, where: string): unknown {
  const shape = routerConfigSchema.shape as Record<string, z.ZodType>;
  const kind = baseKind(shape[key] as z.ZodType);
  switch (kind) {
    case "number": {
      const n = Number(text);
      if (text.trim() === "" || !Number.isFinite(n))
        throw new TrestleError(`${where}: '${text}' is not a number`, Code.InvalidArgument);
      return n;
    }
    case "boolean":
      if (/^(1|true|yes|on)$/i.test(text)) return true;
      if (/^(0|false|no|off)$/i.test(text)) return false;
      throw new TrestleError(`${where}: '${text}' is not a boolean (true or false)`, Code.InvalidArgument);
    case "array":
      if (key === "tokens" || key === "policies") return parseJson(text, where);
      return text
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean);
    case "record":
    case "object":
      return parseJson(text, where);
    case "union":
      // `rateLimit`: an object, or off.
      return /^(false|off|none)$/i.test(text.trim()) ? false : parseJson(text, where);
    default:
      return text;
  }
}

/** Parses a setting's JSON text. @throws TrestleError InvalidArgument naming where the text came from. */
function parseJson(text: string, where: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new TrestleError(`${where}: not valid JSON`, Code.InvalidArgument);
  }
}

/** Reads a YAML or JSON config file. @throws TrestleError InvalidArgument when it cannot be read or parsed. */
export function readConfigFile(path: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new TrestleError(
      `Cannot read the config file ${path}: ${(error as Error).message}`,
      Code.InvalidArgument,
    );
  }
  try {
    const value = path.endsWith(".json") ? JSON.parse(text) : parseYaml(text);
    if (value !== null && typeof value === "object" && !Array.isArray(value))
      return value as Record<string, unknown>;
    if (value === null || value === undefined) return {};
  } catch (error) {
    throw new TrestleError(
      `The config file ${path} is not valid YAML/JSON: ${(error as Error).message}`,
      Code.InvalidArgument,
    );
  }
  throw new TrestleError(`The config file ${path} must hold an object of settings`, Code.InvalidArgument);
}

/** Where configuration comes from, in increasing precedence. */
export interface ConfigSources {
  file?: Record<string, unknown>;
  env?: Record<string, string | undefined>;
  /** Flag values by key (already named after config keys). */
  flags?: Record<string, unknown>;
}

/** The merged configuration as the schema parsed it (absent when it did not), and its problems. */
function validateConfig(sources: ConfigSources): { config: RouterConfig | undefined; problems: string[] } {
  const merged: Record<string, unknown> = { ...(sources.file ?? {}) };
  const unknown = Object.keys(merged).filter((k) => !(k in routerConfigSchema.shape));
  if (unknown.length > 0) {
    throw new TrestleError(`Unknown config key(s): ${unknown.join(", ")}`, Code.InvalidArgument);
  }
  for (const [key, source] of Object.entries(configSources)) {
    const text = sources.env?.[source.env];
    if (text !== undefined && text !== "")
      merged[key] = fromText(key, text, `environment variable ${source.env}`);
  }
  for (const key of SECRET_SETTINGS) {
    const variable = configSources[key]?.env as string;
    const path = sources.env?.[`${variable}_FILE`];
    if (path === undefined || path === "") continue;
    if (sources.env?.[variable]) {
      throw new TrestleError(`Set ${variable} or ${variable}_FILE, not both`, Code.InvalidArgument);
    }
    merged[key] = fromText(key, readSecretFile(variable, path), `the file of ${variable}_FILE`);
  }
  for (const [key, value] of Object.entries(sources.flags ?? {})) {
    // `--transport protocol=package` names packages and keeps the options the file or environment gives them.
    if (key === "transports" && value !== null && typeof value === "object")
      merged[key] = withTransportFlags(merged[key], value as Record<string, string>);
    else if (value !== undefined)
      merged[key] = typeof value === "string" ? fromText(key, value, `flag for ${key}`) : value;
  }
  const parsed = routerConfigSchema.safeParse(merged);
  const problems = parsed.success
    ? [
        ...securityConfigProblems(parsed.data, BUILTIN_PRINCIPAL),
        ...identityConfigProblems(parsed.data),
        ...configProblems(parsed.data),
      ]
    : parsed.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`);
  return { config: parsed.success ? parsed.data : undefined, problems };
}

/** `config`, or the error that names every problem. */
function validConfig(config: RouterConfig | undefined, problems: readonly string[]): RouterConfig {
  if (config === undefined || problems.length > 0)
    throw new TrestleError(`Invalid configuration: ${problems.join("; ")}`, Code.InvalidArgument);
  return config;
}

/**
 * Builds and validates the configuration: defaults, then the file, then environment variables, then flags. The
 * policy rules' expressions are not compiled here (that needs the policy engine): {@link resolveRouterConfig}
 * does, as the router does when it starts.
 * @throws TrestleError InvalidArgument naming every invalid or unknown key, with where it came from.
 */
export function resolveConfig(sources: ConfigSources): RouterConfig {
  const { config, problems } = validateConfig(sources);
  return validConfig(config, problems);
}

/**
 * {@link resolveConfig}, and the policy rules compiled: a rule that does not compile is one more problem of the
 * same error. The policy engine is loaded only when there are rules.
 * @throws TrestleError InvalidArgument naming every invalid or unknown key and every rule that does not compile.
 */
export async function resolveRouterConfig(sources: ConfigSources): Promise<RouterConfig> {
  const { config, problems } = validateConfig(sources);
  if (config !== undefined) problems.push(...(await policyConfigProblems(config.policies)));
  return validConfig(config, problems);
}
