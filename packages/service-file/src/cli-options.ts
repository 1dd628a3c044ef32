import {
  type CapabilityCli,
  parseCapabilityCli,
  type ServiceEnvironment,
  serviceUsage,
} from "@trestle/capability";
import type { FileServiceOptions } from "./file-service.js";
import type { StartFileServiceOptions } from "./start-file-service.js";

const FILE_FLAGS = {
  root: {
    type: "string",
    multiple: true,
    placeholder: "DIR",
    description:
      'serve the files under DIR (repeatable), default the current directory\n(env TRESTLE_FILE_ROOTS, separated by the path delimiter ":")',
  },
  exclude: {
    type: "string",
    multiple: true,
    placeholder: "DIR",
    description:
      'never serve DIR or anything in it, even under a root (repeatable;\nenv TRESTLE_FILE_EXCLUDED_ROOTS, separated by ":"); ./.trestle and the\nhome are always excluded',
  },
  "max-file-bytes": {
    type: "integer",
    min: 1,
    placeholder: "N",
    description: "largest file served, default 8388608",
  },
} as const;

/** The directories of a `:`-separated environment variable, empty entries left out. */
function directories(text: string | undefined): string[] {
  return text?.split(":").filter((dir) => dir !== "") ?? [];
}

/** `trestle-file`'s command line: the standard flags of `@trestle/capability` and the file provider's own. */
export const FILE_CLI: CapabilityCli<typeof FILE_FLAGS, FileServiceOptions> = {
  program: "trestle-file",
  home: "provisioned files and registration id",
  defaultHome: "./.trestle/services/file",
  flags: FILE_FLAGS,
  options(flags, env) {
    const envRoots = directories(env.TRESTLE_FILE_ROOTS);
    const options: FileServiceOptions = {
      roots: flags.root ?? (envRoots.length > 0 ? envRoots : [process.cwd()]),
    };
    const excluded = [...directories(env.TRESTLE_FILE_EXCLUDED_ROOTS), ...(flags.exclude ?? [])];
    if (excluded.length > 0) options.excludedRoots = excluded;
    if (flags["max-file-bytes"] !== undefined) options.maxFileBytes = flags["max-file-bytes"];
    return options;
  },
};

/** The usage text of `trestle-file`. */
export const FILE_USAGE = serviceUsage(FILE_CLI);

/** `trestle-file`'s options from its flags and environment (see `parseCapabilityCli`); `"help"` for `--help`. */
export const parseFileCommandLine = (
  argv: readonly string[],
  env: ServiceEnvironment,
): StartFileServiceOptions | "help" => parseCapabilityCli(FILE_CLI, argv, env);
