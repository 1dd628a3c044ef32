import { hostname } from "node:os";
import { join } from "node:path";
import {
  createCapabilityServer,
  createRegistrationClient,
  type RegistrationClient,
  type RegistrationEvent,
} from "@trestle/capability";
import { createFileService, type FileServiceOptions } from "./file-service.js";

/** Trestle's state directory, relative to the working directory: never served by {@link startFileService}. */
export const TRESTLE_STATE_DIRECTORY = ".trestle";

/** Options for {@link startFileService}: the service's own options plus where to listen and register. */
export interface StartFileServiceOptions extends FileServiceOptions {
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
  /** Name to register under. Default `file`. */
  serviceName?: string;
  /** Told about registrations and retries (for logs). */
  onRegistrationEvent?: (event: RegistrationEvent) => void;
}

/** A started file resource provider. */
export interface RunningFileService {
  /** Where it listens. */
  host: string;
  port: number;
  /** The registration with the router, when a router was given. */
  registration: RegistrationClient | undefined;
  /** Deregisters, then closes the server (calls in flight get the server's grace period). Idempotent. */
  close(): Promise<void>;
}

function advertisedHost(listenHost: string, advertiseHost: string | undefined): string {
  if (advertiseHost) return advertiseHost;
  return listenHost === "0.0.0.0" || listenHost === "::" ? hostname() : listenHost;
}

/**
 * Starts the file resource provider: a capability server with {@link createFileService}'s handlers, listening
 * on `host:port`, registered (and kept registered) with the router as service `file`, type
 * `resource-provider`, when `routerUrl` is given. Besides `excludedRoots` and the home, it never serves the
 * `.trestle` directory of the working directory.
 *
 * @throws TrestleError InvalidArgument when a root is not a directory; an error when the port cannot be bound.
 */
export async function startFileService(options: StartFileServiceOptions = {}): Promise<RunningFileService> {
  const home = options.home ?? join(process.cwd(), ".trestle", "services", "file");
  const server = createCapabilityServer({
    ...createFileService({
      ...options,
      home,
      // Trestle's state directory in the working directory (the router's default data directory and every
      // built-in's home, with their provisioned secrets) is never a file to serve.
      excludedRoots: [...(options.excludedRoots ?? []), join(process.cwd(), TRESTLE_STATE_DIRECTORY)],
    }),
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
            serviceName: options.serviceName ?? "file",
            serviceType: "resource-provider",
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
