import { hostname } from "node:os";
import { join } from "node:path";
import type { CapabilityHandlers } from "@trestle/wanaku";

import {
  type CapabilityServer,
  type CapabilityServerTlsOptions,
  createCapabilityServer,
} from "./capability-server.js";
import {
  createRegistrationClient,
  type RegistrationClient,
  type RegistrationEvent,
  type RegistrationTarget,
} from "./registration-client.js";
import type { StandardServiceOptions } from "./service-command-line.js";

/** One registration of a capability service: what the router learns about it, less where it listens. */
export interface ServiceRegistration extends Omit<RegistrationTarget, "host" | "port"> {
  /** The file under the home that keeps the id the router assigned. Default `service.id`. */
  idFile?: string;
  /** Fields added to this registration's event lines (the code execution engine: its `language`). */
  eventFields?: Readonly<Record<string, string>>;
}

/** The options every capability service takes, whatever its own: {@link StandardServiceOptions} and more. */
export interface CapabilityServiceOptions extends StandardServiceOptions {
  /** Serve over TLS instead of cleartext (see {@link createCapabilityServer}). */
  tls?: CapabilityServerTlsOptions;
  /** How long closing lets calls in flight finish. Default the server's (5,000 ms). */
  closeTimeoutMs?: number;
  /** The largest request message accepted. Default the server's (64 MiB, see {@link createCapabilityServer}). */
  maxRequestBytes?: number;
  /** Time between heartbeats. Default the registration client's (10,000 ms). */
  heartbeatIntervalMs?: number;
  /** Told about registrations and retries (for logs), with the registration they concern. */
  onRegistrationEvent?: (event: RegistrationEvent, registration: ServiceRegistration) => void;
}

/** The home and options a {@link CapabilityDefinition} builds its handlers from. */
export type ServiceSetup<Options> = Options & CapabilityServiceOptions & { home: string };

/**
 * What a capability service is, apart from where it runs: its name, how its handlers are made from its
 * options, and what it registers as. {@link startCapabilityService} runs it; {@link serveCapability} runs it as
 * a program.
 *
 * @typeParam Options - the service's own options.
 * @typeParam Served - what {@link CapabilityDefinition.handlers} returns: the handlers, and whatever else the
 *   registrations and the ready line need (the code execution engine's languages).
 */
export interface CapabilityDefinition<Options, Served extends CapabilityHandlers = CapabilityHandlers> {
  /** The service's name in its ready line and events (`http`), and its default home `./.trestle/services/<name>`. */
  name: string;
  /**
   * Makes the handlers (any of the five; a missing one answers `UNIMPLEMENTED`).
   *
   * @throws to refuse to start (a sandbox that does not work, a root that is not a directory).
   */
  handlers(setup: ServiceSetup<Options>): Served | Promise<Served>;
  /** What it registers as: once, several times (once per language), or as the handlers decide. */
  registration:
    | ServiceRegistration
    | readonly ServiceRegistration[]
    | ((
        setup: ServiceSetup<Options>,
        served: Served,
      ) => ServiceRegistration | readonly ServiceRegistration[]);
  /** Fields added to the ready line after `host` and `port`. */
  ready?(served: Served): Record<string, unknown>;
}

/** A started capability service. */
export interface RunningCapabilityService<Served extends CapabilityHandlers = CapabilityHandlers> {
  /** Where it listens. */
  host: string;
  port: number;
  /** What its definition's handlers made. */
  served: Served;
  /** Its registrations with the router, one per {@link ServiceRegistration}; none without a router. */
  registrations: readonly RegistrationClient[];
  /** The ready line's fields: `event`, `service`, `host`, `port`, and the definition's `ready` fields. */
  readyLine(): Record<string, unknown>;
  /** Deregisters everywhere, then closes the server (calls in flight get its grace period). Idempotent. */
  close(): Promise<void>;
}

/** The host a router can reach a server on, given where it listens and what the operator asked to advertise. */
export function advertisedHost(listenHost: string, advertiseHost: string | undefined): string {
  if (advertiseHost) return advertiseHost;
  return listenHost === "0.0.0.0" || listenHost === "::" ? hostname() : listenHost;
}

/** A service's default home: `./.trestle/services/<name>` under the working directory. */
export function defaultServiceHome(name: string): string {
  return join(process.cwd(), ".trestle", "services", name);
}

const HANDLER_NAMES = [
  "toolInvoker",
  "resourceAcquirer",
  "provisioner",
  "healthProbe",
  "codeExecutor",
] as const;

function listOf<T>(value: T | readonly T[]): readonly T[] {
  return Array.isArray(value) ? value : [value as T];
}

function handlersOf(served: CapabilityHandlers): CapabilityHandlers {
  const handlers: Record<string, unknown> = {};
  for (const name of HANDLER_NAMES) if (served[name] !== undefined) handlers[name] = served[name];
  return handlers as CapabilityHandlers;
}

/**
 * Starts a capability service: its definition's handlers on a capability server at `host:port` (default
 * `127.0.0.1:0`), and, when `routerUrl` is given, one registration client per registration, kept registered
 * under an id kept in `<home>/<idFile>`.
 *
 * @throws what the definition's `handlers` throws; an error when the port cannot be bound.
 * @example
 * ```ts
 * const service = await startCapabilityService(
 *   { name: "greeter", handlers: () => ({ toolInvoker: () => ({ content: ["hello"] }) }),
 *     registration: { serviceName: "greeter", serviceType: "tool-invoker" } },
 *   { routerUrl: "http://localhost:8080" },
 * );
 * ```
 */
export async function startCapabilityService<Options, Served extends CapabilityHandlers>(
  definition: CapabilityDefinition<Options, Served>,
  options: Options & CapabilityServiceOptions,
): Promise<RunningCapabilityService<Served>> {
  const setup = { ...options, home: options.home ?? defaultServiceHome(definition.name) };
  const served = await definition.handlers(setup);
  const server: CapabilityServer = createCapabilityServer({
    ...handlersOf(served),
    host: options.host ?? "127.0.0.1",
    port: options.port ?? 0,
    ...(options.tls === undefined ? {} : { tls: options.tls }),
    ...(options.closeTimeoutMs === undefined ? {} : { closeTimeoutMs: options.closeTimeoutMs }),
    ...(options.callSecret === undefined ? {} : { callSecret: options.callSecret }),
    ...(options.maxRequestBytes === undefined ? {} : { maxRequestBytes: options.maxRequestBytes }),
  });
  const { host, port } = await server.listen();
  const declared =
    typeof definition.registration === "function"
      ? definition.registration(setup, served)
      : definition.registration;
  const routerUrl = options.routerUrl;
  const onEvent = options.onRegistrationEvent;
  const registrations =
    routerUrl === undefined
      ? []
      : listOf(declared).map((registration) => {
          const { idFile, eventFields: _fields, ...target } = registration;
          return createRegistrationClient({
            routerUrl,
            ...(options.routerToken === undefined ? {} : { token: options.routerToken }),
            target: { ...target, host: advertisedHost(host, options.advertiseHost), port },
            idFile: join(setup.home, idFile ?? "service.id"),
            ...(options.heartbeatIntervalMs === undefined
              ? {}
              : { heartbeatIntervalMs: options.heartbeatIntervalMs }),
            ...(onEvent === undefined ? {} : { onEvent: (event) => onEvent(event, registration) }),
          });
        });
  for (const registration of registrations) registration.start();
  let closing: Promise<void> | undefined;
  return {
    host,
    port,
    served,
    registrations,
    readyLine: () => ({
      event: "ready",
      service: definition.name,
      host,
      port,
      ...definition.ready?.(served),
    }),
    close() {
      closing ??= (async () => {
        await Promise.all(registrations.map((registration) => registration.stop()));
        await server.close();
      })();
      return closing;
    },
  };
}
