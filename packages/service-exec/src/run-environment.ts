import { Code, TrestleError } from "@trestle/core";

const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/**
 * Variables a request may not set, because they would undo the engine's own settings: Node options can widen
 * the permission model, loader variables inject code into any binary, bash reads BASH_ENV before the script,
 * and HOME stays the work directory.
 */
const REFUSED = [
  /^NODE_OPTIONS$/,
  /^LD_/,
  /^DYLD_/,
  /^BASH_ENV$/,
  /^ENV$/,
  /^SHELLOPTS$/,
  /^BASHOPTS$/,
  /^HOME$/,
];

/** What the engine itself puts into every run's environment. */
export interface BaseEnvironment {
  /** The run's work directory; also its HOME and TMPDIR. */
  workDir: string;
  /** PATH for the program. */
  path: string;
  /** LANG, when the service has one. */
  lang: string | undefined;
}

/**
 * A run's whole environment: PATH, HOME and TMPDIR (the work directory), LANG, plus what the request sets.
 * Nothing else of the service's own environment reaches the program (no tokens, no router URL).
 *
 * @throws TrestleError InvalidArgument for a malformed name or one the engine refuses.
 */
export function runEnvironment(
  base: BaseEnvironment,
  requested: Readonly<Record<string, string>>,
): Record<string, string> {
  const env: Record<string, string> = { PATH: base.path, HOME: base.workDir, TMPDIR: base.workDir };
  if (base.lang) env.LANG = base.lang;
  for (const [name, value] of Object.entries(requested)) {
    if (!VARIABLE_NAME.test(name)) {
      throw new TrestleError(
        `Environment variable name ${JSON.stringify(name)} is not valid`,
        Code.InvalidArgument,
      );
    }
    if (REFUSED.some((pattern) => pattern.test(name))) {
      throw new TrestleError(
        `Environment variable ${name} cannot be set on this engine`,
        Code.InvalidArgument,
      );
    }
    if (value.includes("\0")) {
      throw new TrestleError(`Environment variable ${name} contains a NUL character`, Code.InvalidArgument);
    }
    env[name] = value;
  }
  return env;
}
