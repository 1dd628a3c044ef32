import type { CapabilityHandlers } from "@trestle/wanaku";
import type { RegistrationEvent } from "./registration-client.js";
import {
  parseServiceCommandLine,
  type ServiceCommandLine,
  type ServiceFlags,
  type ServiceFlagValues,
  type StandardServiceOptions,
  serviceUsage,
} from "./service-command-line.js";
import {
  type CapabilityDefinition,
  type RunningCapabilityService,
  type ServiceRegistration,
  startCapabilityService,
} from "./start-capability-service.js";
import { stopOnSignals } from "./stop-on-signals.js";

/** An environment to read settings from: `process.env` or a test's own. */
export type ServiceEnvironment = Readonly<Record<string, string | undefined>>;

/** A capability service's command line, and how its own flags become its own options. */
export interface CapabilityCli<Flags extends ServiceFlags, Options> extends ServiceCommandLine<Flags> {
  /**
   * The service's own options from its flags and the environment (flags should win over the environment).
   *
   * @throws TrestleError InvalidArgument for a value it refuses: the program prints it with its usage, exit 2.
   */
  options(flags: ServiceFlagValues<Flags>, env: ServiceEnvironment): Options;
}

/** Options of {@link serveCapability}: a {@link CapabilityDefinition} and its command line. */
export interface ServeCapabilityOptions<
  Flags extends ServiceFlags,
  Options,
  Served extends CapabilityHandlers,
> extends CapabilityDefinition<Options, Served> {
  cli: CapabilityCli<Flags, Options>;
  /** The arguments to read. Default `process.argv.slice(2)`. */
  argv?: readonly string[];
  /** The environment to read. Default `process.env`. */
  env?: ServiceEnvironment;
  /** Time between heartbeats to the router. Default the registration client's (10,000 ms). */
  heartbeatIntervalMs?: number;
}

/**
 * Reads a capability service's command line into its options: the standard ones (see
 * {@link parseServiceCommandLine}) and the service's own (`cli.options`). Returns `"help"` for `--help`.
 *
 * @throws TrestleError InvalidArgument for an unknown flag, a malformed integer, or what `cli.options` refuses.
 */
export function parseCapabilityCli<Flags extends ServiceFlags, Options>(
  cli: CapabilityCli<Flags, Options>,
  argv: readonly string[],
  env: ServiceEnvironment,
): (Options & StandardServiceOptions & { host: string; port: number }) | "help" {
  const parsed = parseServiceCommandLine(cli, argv, env);
  if (parsed === "help") return parsed;
  return { ...parsed.standard, ...cli.options(parsed.flags, env) };
}

/** The JSON line a registration event is told as on stderr: never the token, an error by its message only. */
function registrationLine(service: string, event: RegistrationEvent, registration: ServiceRegistration) {
  const { error, ...rest } = event as RegistrationEvent & { error?: Error };
  return {
    event: "registration",
    service,
    ...registration.eventFields,
    ...rest,
    ...(error ? { error: error.message } : {}),
  };
}

/**
 * Runs a capability service as a program, the way Trestle's router runs its built-ins:
 *
 * - reads the command line and environment (standard flags `--router`, `--host` (default `127.0.0.1`),
 *   `--port`, `--advertise-host`, `--home`, `--help`; `TRESTLE_ROUTER_URL`, `TRESTLE_SERVICE_HOST`,
 *   `TRESTLE_SERVICE_PORT`; the router token from `TRESTLE_ROUTER_TOKEN` and the call secret from
 *   `TRESTLE_CAPABILITY_SECRET`, from the environment only; then the service's own flags);
 *   a bad command line prints `<program>: <message>`, a blank line and the usage on stderr and exits 2;
 *   `--help` prints the usage on stdout and exits 0;
 * - starts it ({@link startCapabilityService}): listens, registers and heartbeats when a router is given;
 *   a failure to start prints `<program>: could not start: <message>` on stderr and exits 1;
 * - writes each registration event as one JSON line on stderr
 *   (`{"event":"registration","service":…,"type":"registered",…}`);
 * - prints one JSON ready line on stdout, `{"event":"ready","service":…,"host":…,"port":…}` and the definition's
 *   `ready` fields, which the router's launcher and tests read to learn the port;
 * - on the first SIGTERM or SIGINT deregisters, closes the server and lets the process end (exit 0).
 *
 * Resolves with the running service once the ready line is written.
 *
 * @example
 * ```ts
 * await serveCapability({
 *   name: "greeter",
 *   cli: {
 *     program: "greeter",
 *     defaultHome: "./.trestle/services/greeter",
 *     flags: { greeting: { type: "string", placeholder: "TEXT", description: "what to say, default Hello" } },
 *     options: (flags) => ({ greeting: flags.greeting ?? "Hello" }),
 *   },
 *   handlers: ({ greeting }) => ({ toolInvoker: (request) => ({ content: [`${greeting}, ${request.arguments.name}!`] }) }),
 *   registration: { serviceName: "greeter", serviceType: "tool-invoker" },
 * });
 * ```
 */
export async function serveCapability<Flags extends ServiceFlags, Options, Served extends CapabilityHandlers>(
  options: ServeCapabilityOptions<Flags, Options, Served>,
): Promise<RunningCapabilityService<Served>> {
  const {
    cli,
    argv = process.argv.slice(2),
    env = process.env,
    heartbeatIntervalMs,
    ...definition
  } = options;
  let parsed: ReturnType<typeof parseCapabilityCli<Flags, Options>>;
  try {
    parsed = parseCapabilityCli(cli, argv, env);
  } catch (error) {
    process.stderr.write(`${cli.program}: ${(error as Error).message}\n\n${serviceUsage(cli)}\n`);
    process.exit(2);
  }
  if (parsed === "help") {
    process.stdout.write(`${serviceUsage(cli)}\n`);
    process.exit(0);
  }
  let service: RunningCapabilityService<Served>;
  try {
    service = await startCapabilityService(definition, {
      ...parsed,
      ...(heartbeatIntervalMs === undefined ? {} : { heartbeatIntervalMs }),
      onRegistrationEvent(event, registration) {
        process.stderr.write(`${JSON.stringify(registrationLine(definition.name, event, registration))}\n`);
      },
    });
  } catch (error) {
    process.stderr.write(`${cli.program}: could not start: ${(error as Error).message}\n`);
    process.exit(1);
  }
  process.stdout.write(`${JSON.stringify(service.readyLine())}\n`);
  stopOnSignals(() => service.close());
  return service;
}
