import { parseArgs } from "node:util";
import { Code, TrestleError } from "@trestle/core";

/** A flag of a capability service's own, beside the standard ones {@link parseServiceCommandLine} reads. */
export type ServiceFlag =
  | {
      type: "boolean";
      /** One line of usage text. */
      description: string;
    }
  | {
      type: "string";
      /** Repeatable: its value is every occurrence, in order. */
      multiple?: boolean;
      /** What the value is, in the usage text (`DIR`, `HOST`). */
      placeholder: string;
      /** Usage text; a line break continues it under the description column. */
      description: string;
    }
  | {
      type: "integer";
      /** The smallest value accepted. */
      min: number;
      /** What the value is, in the usage text (`MS`, `N`). */
      placeholder: string;
      description: string;
    };

/** A service's own flags by name, without the leading `--`. */
export type ServiceFlags = Readonly<Record<string, ServiceFlag>>;

/** What a flag of {@link ServiceFlags} reads as: `undefined` when it was not given. */
export type ServiceFlagValue<Flag extends ServiceFlag> = Flag extends { type: "boolean" }
  ? boolean | undefined
  : Flag extends { type: "integer" }
    ? number | undefined
    : Flag extends { multiple: true }
      ? string[] | undefined
      : string | undefined;

/** The values of a service's own flags. */
export type ServiceFlagValues<Flags extends ServiceFlags> = {
  [Name in keyof Flags]: ServiceFlagValue<Flags[Name]>;
};

/** Where to listen, where to register and with which credentials: what every capability service is told. */
export interface StandardServiceOptions {
  /** Interface to listen on. Default `127.0.0.1`. */
  host?: string;
  /** Port to listen on; 0 (the default) picks a free one. */
  port?: number;
  /** The router to register with (`http://router:8080`); no registration without it. */
  routerUrl?: string;
  /** Bearer token for the router's management API. Never logged. */
  routerToken?: string;
  /**
   * Secret every call must carry in `x-trestle-capability-secret` metadata (see {@link createCapabilityServer});
   * unset, calls need none. Never logged.
   */
  callSecret?: string;
  /** Host the router should call; default the listen host (the machine's name when listening on all). */
  advertiseHost?: string;
  /** The service's directory: registration ids, provisioned files. Default `./.trestle/services/<name>`. */
  home?: string;
}

/** The command line of a capability service: its program name and its own flags. */
export interface ServiceCommandLine<Flags extends ServiceFlags> {
  /** The program's name, in messages and the usage text (`trestle-http`). */
  program: string;
  /** What the home holds, in the usage text. Default `registration ids`. */
  home?: string;
  /** Default home, in the usage text. Default `./.trestle/services/<name>`. */
  defaultHome: string;
  /** The service's own flags, listed after the standard ones. */
  flags: Flags;
  /** Paragraphs printed after the flags. */
  notes?: string;
}

/** What {@link parseServiceCommandLine} read. */
export interface ParsedServiceCommandLine<Flags extends ServiceFlags> {
  /** The standard options; `host` and `port` always set. */
  standard: StandardServiceOptions & { host: string; port: number };
  /** The service's own flags. */
  flags: ServiceFlagValues<Flags>;
}

const COLUMN = 26;

/** The standard flags, in the usage text's order. */
const STANDARD_FLAGS: [string, string][] = [
  ["--router URL", "register with this router (env TRESTLE_ROUTER_URL)"],
  ["--host HOST", "interface to listen on, default 127.0.0.1 (env TRESTLE_SERVICE_HOST)"],
  ["--port PORT", "port to listen on, default 0 = any free port (env TRESTLE_SERVICE_PORT)"],
  ["--advertise-host HOST", "host the router should call, default the listen host"],
];

const CREDENTIALS_NOTE = `The router token, if the router needs one, is read from TRESTLE_ROUTER_TOKEN only. The call secret, if set,
is read from TRESTLE_CAPABILITY_SECRET only: every call must then carry it in x-trestle-capability-secret.`;

function usageLine(flag: string, description: string): string {
  const [first = "", ...rest] = description.split("\n");
  const head =
    flag.length < COLUMN - 2
      ? `  ${flag.padEnd(COLUMN - 2)}${first}`
      : `  ${flag}\n${" ".repeat(COLUMN)}${first}`;
  return [head, ...rest.map((line) => `${" ".repeat(COLUMN)}${line}`)].join("\n");
}

/**
 * The usage text of a capability service: the standard flags, the home, the service's own flags, `--help`,
 * its notes and where the credentials come from.
 */
export function serviceUsage<Flags extends ServiceFlags>(commandLine: ServiceCommandLine<Flags>): string {
  const lines = STANDARD_FLAGS.map(([flag, description]) => usageLine(flag, description));
  lines.push(
    usageLine("--home DIR", `${commandLine.home ?? "registration ids"}, default ${commandLine.defaultHome}`),
  );
  for (const [name, flag] of Object.entries(commandLine.flags)) {
    const shown = flag.type === "boolean" ? `--${name}` : `--${name} ${flag.placeholder}`;
    lines.push(usageLine(shown, flag.description));
  }
  lines.push(usageLine("-h, --help", "print this text"));
  const notes = commandLine.notes ? `\n\n${commandLine.notes}` : "";
  return `Usage: ${commandLine.program} [options]\n\n${lines.join("\n")}${notes}\n\n${CREDENTIALS_NOTE}`;
}

/**
 * Reads an integer flag's text.
 *
 * @throws TrestleError InvalidArgument when it is not an integer of at least `min`.
 */
function integer(flag: string, text: string | undefined, min: number): number | undefined {
  if (text === undefined || text === "") return undefined;
  const value = Number(text);
  if (!Number.isInteger(value) || value < min) {
    throw new TrestleError(`--${flag} must be an integer of at least ${min}`, Code.InvalidArgument);
  }
  return value;
}

/**
 * Reads a capability service's command line and environment: the standard flags (`--router`, `--host`,
 * `--port`, `--advertise-host`, `--home`; flags win over `TRESTLE_ROUTER_URL`, `TRESTLE_SERVICE_HOST`,
 * `TRESTLE_SERVICE_PORT`), the router token from `TRESTLE_ROUTER_TOKEN` and the call secret from
 * `TRESTLE_CAPABILITY_SECRET` (from the environment only: a command line is readable by every user of the
 * machine), and the service's own flags. Returns `"help"` for `--help`.
 *
 * @throws TrestleError InvalidArgument for an unknown flag, a positional argument or a malformed integer.
 */
export function parseServiceCommandLine<Flags extends ServiceFlags>(
  commandLine: ServiceCommandLine<Flags>,
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): ParsedServiceCommandLine<Flags> | "help" {
  const own: Record<string, { type: "string" | "boolean"; multiple?: boolean }> = {};
  for (const [name, flag] of Object.entries(commandLine.flags)) {
    own[name] =
      flag.type === "boolean"
        ? { type: "boolean" }
        : { type: "string", ...(flag.type === "string" && flag.multiple ? { multiple: true } : {}) };
  }
  let values: Record<string, string | boolean | string[] | undefined>;
  try {
    values = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        ...own,
        router: { type: "string" },
        host: { type: "string" },
        port: { type: "string" },
        "advertise-host": { type: "string" },
        home: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    }).values;
  } catch (error) {
    throw new TrestleError((error as Error).message, Code.InvalidArgument);
  }
  if (values.help) return "help";
  const text = (name: string) => values[name] as string | undefined;
  const standard: ParsedServiceCommandLine<Flags>["standard"] = {
    host: text("host") ?? env.TRESTLE_SERVICE_HOST ?? "127.0.0.1",
    port: integer("port", text("port") ?? env.TRESTLE_SERVICE_PORT, 0) ?? 0,
  };
  const routerUrl = text("router") ?? env.TRESTLE_ROUTER_URL;
  if (routerUrl) standard.routerUrl = routerUrl;
  if (env.TRESTLE_ROUTER_TOKEN) standard.routerToken = env.TRESTLE_ROUTER_TOKEN;
  if (env.TRESTLE_CAPABILITY_SECRET) standard.callSecret = env.TRESTLE_CAPABILITY_SECRET;
  const advertiseHost = text("advertise-host");
  if (advertiseHost) standard.advertiseHost = advertiseHost;
  const home = text("home");
  if (home) standard.home = home;
  const flags: Record<string, unknown> = {};
  for (const [name, flag] of Object.entries(commandLine.flags)) {
    flags[name] = flag.type === "integer" ? integer(name, text(name), flag.min) : values[name];
  }
  return { standard, flags: flags as ServiceFlagValues<Flags> };
}
