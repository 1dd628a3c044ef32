import { hostname } from "node:os";
import { join } from "node:path";
import {
  createCapabilityServer,
  createRegistrationClient,
  type RegistrationClient,
  type RegistrationEvent,
} from "@trestle/capability";
import { createHttpService, type HttpServiceOptions } from "./http-service.js";

/** Options for {@link startHttpService}: the service's own options plus where to listen and register. */
export interface StartHttpServiceOptions extends HttpServiceOptions {
  /** Interface to listen on. Default `127.0.0.1`. */
  host?: string;
  /** Port to listen on; 0 (the default) picks a free one. */
  port?: number;
  /** The router to register with (`http://router:8080`); no registration without it. */
  routerUrl?: string;
  /** Bearer token for the router's management API. Never logged. */
  routerToken?: string;
  /**
   * Secret every call must carry in `x-trestle-capability-secret` metadata (see `@trestle/capability`); unset,
   * calls need none. Never logged.
   */
  callSecret?: string;
  /** Host the router should call; default the listen host (the machine's name when listening on all). */
  advertiseHost?: string;
  /** Name to register under. Default `http`. */
  serviceName?: string;
  /** Told about registrations and retries (for logs). */
  onRegistrationEvent?: (event: RegistrationEvent) => void;
}

/** A started HTTP tool invoker. */
export interface RunningHttpService {
  /** Where it listens. */
  host: string;
  port: number;
  /** The registration with the router, when a router was given. */
  registration: RegistrationClient | undefined;
  /** Deregisters, then closes the server (calls in flight get the server's grace period). Idempotent. */
  close(): Promise<void>;
}

/** Default service home: provisioned files and the registration id. */
function defaultHome(): string {
  return join(process.cwd(), ".trestle", "services", "http");
}

/** The host a router can reach a server on, given where it listens. */
export function advertisedHost(listenHost: string, advertiseHost: string | undefined): string {
  if (advertiseHost) return advertiseHost;
  return listenHost === "0.0.0.0" || listenHost === "::" ? hostname() : listenHost;
}

/**
 * Starts the HTTP tool invoker: a capability server with {@link createHttpService}'s handlers, listening on
 * `host:port`, registered (and kept registered) with the router as service `http`, type `tool-invoker`, when
 * `routerUrl` is given.
 *
 * @throws when the port cannot be bound.
 */
export async function startHttpService(options: StartHttpServiceOptions = {}): Promise<RunningHttpService> {
  const home = options.home ?? defaultHome();
  const server = createCapabilityServer({
    ...createHttpService({ ...options, home }),
    host: options.host ?? "127.0.0.1",
    port: options.port ?? 0,
    ...(options.callSecret === undefined ? {} : { callSecret: options.callSecret }),
  });
  const { host, port } = await server.listen();
  const registration =
    options.routerUrl === undefined
      ? undefined
      : createRegistrationClient({
          routerUrl: options.routerUrl,
          ...(options.routerToken === undefined ? {} : { token: options.routerToken }),
          target: {
            serviceName: options.serviceName ?? "http",
            serviceType: "tool-invoker",
            host: advertisedHost(host, options.advertiseHost),
            port,
          },
          idFile: join(home, "service.id"),
          ...(options.onRegistrationEvent === undefined ? {} : { onEvent: options.onRegistrationEvent }),
        });
  registration?.start();
  let closing: Promise<void> | undefined;
  return {
    host,
    port,
    registration,
    close() {
      closing ??= (async () => {
        await registration?.stop();
        await server.close();
      })();
      return closing;
    },
  };
}
