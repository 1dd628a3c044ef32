import { hostname } from "node:os";
import { join } from "node:path";
import {
  createCapabilityServer,
  createRegistrationClient,
  type RegistrationClient,
  type RegistrationEvent,
} from "@trestle/capability";
import { createExecService, type ExecServiceOptions } from "./exec-service.js";
import type { LanguageName } from "./language-runtimes.js";

/** Options for {@link startExecService}: the engine's own options plus where to listen and register. */
export interface StartExecServiceOptions extends ExecServiceOptions {
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
  /** Where the registration ids are kept. Default `./.trestle/services/exec`. */
  home?: string;
  /** Told about registrations and retries (for logs), with the language they concern. */
  onRegistrationEvent?: (event: RegistrationEvent, language: LanguageName) => void;
}

/** A started code execution engine. */
export interface RunningExecService {
  /** Where it listens. */
  host: string;
  port: number;
  /** The engine type it registered under (`trestle`). */
  engineName: string;
  /** The languages it offers. */
  languages: readonly LanguageName[];
  /** One registration per language, when a router was given. */
  registrations: readonly RegistrationClient[];
  /** Deregisters every language, then closes the server (runs in flight are cancelled at its grace). */
  close(): Promise<void>;
}

function advertisedHost(listenHost: string, advertiseHost: string | undefined): string {
  if (advertiseHost) return advertiseHost;
  return listenHost === "0.0.0.0" || listenHost === "::" ? hostname() : listenHost;
}

/**
 * Starts the code execution engine: a capability server with {@link createExecService}'s handlers on
 * `host:port`, registered with the router (when `routerUrl` is given) once per language as service
 * `trestle`, type `code-execution-engine`, sub-type `trestle`, language `javascript` / `python` / `bash`.
 *
 * @throws when the port cannot be bound.
 */
export async function startExecService(options: StartExecServiceOptions = {}): Promise<RunningExecService> {
  const home = options.home ?? join(process.cwd(), ".trestle", "services", "exec");
  const engine = createExecService(options);
  const { engineName, languages, ...handlers } = engine;
  const server = createCapabilityServer({
    ...handlers,
    host: options.host ?? "127.0.0.1",
    port: options.port ?? 0,
    ...(options.callSecret === undefined ? {} : { callSecret: options.callSecret }),
  });
  const { host, port } = await server.listen();
  const routerUrl = options.routerUrl;
  const registrations =
    routerUrl === undefined
      ? []
      : languages.map((language) =>
          createRegistrationClient({
            routerUrl,
            ...(options.routerToken === undefined ? {} : { token: options.routerToken }),
            target: {
              serviceName: engineName,
              serviceType: "code-execution-engine",
              serviceSubType: engineName,
              languageName: language,
              host: advertisedHost(host, options.advertiseHost),
              port,
            },
            idFile: join(home, `service-${language}.id`),
            ...(options.onRegistrationEvent === undefined
              ? {}
              : { onEvent: (event: RegistrationEvent) => options.onRegistrationEvent?.(event, language) }),
          }),
        );
  for (const registration of registrations) registration.start();
  let closing: Promise<void> | undefined;
  return {
    host,
    port,
    engineName,
    languages,
    registrations,
    close() {
      closing ??= (async () => {
        await Promise.all(registrations.map((registration) => registration.stop()));
        await server.close();
      })();
      return closing;
    },
  };
}
