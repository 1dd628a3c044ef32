import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { Code, type ServiceTarget, type ServiceType, TrestleError } from "@trestle/core";
import { createRetryBackoff } from "./retry-backoff.js";
import { fetchRouterRequest, nodeRouterRequest, type RouterAnswer } from "./router-request.js";

/** What a capability tells the router about itself: Wanaku's `ServiceTarget` without the id. */
export interface RegistrationTarget {
  serviceName: string;
  /** Host the router should call; the address the server listens on, as others see it. */
  host: string;
  port: number;
  serviceType: ServiceType;
  /** Engine type, for code execution engines. */
  serviceSubType?: string;
  languageName?: string;
  languageType?: string;
  languageSubType?: string;
  /** Which transport reaches it (`"grpc"`, the router's default, or `"connect"`). A Trestle field. */
  protocol?: string;
}

/** Something that happened to the registration, for logs and metrics. Carries no token. */
export type RegistrationEvent =
  | { type: "registered"; id: string; again: boolean }
  | { type: "forgotten"; id: string }
  | { type: "retrying"; error: TrestleError; attempt: number; delayMs: number }
  | { type: "deregistered"; id: string }
  | { type: "deregistration-failed"; id: string; error: TrestleError };

/** Options for {@link createRegistrationClient}. */
export interface RegistrationClientOptions {
  /** The router's base URL, e.g. `http://localhost:8080`. */
  routerUrl: string;
  /** What to register. */
  target: RegistrationTarget;
  /** Sent as `Authorization: Bearer <token>` on every call to the router. Never logged. */
  token?: string;
  /**
   * A file keeping the id the router assigned, so that a restarted service registers again under the same id
   * (and so the same identity). Without it, the id lives only as long as the process.
   */
  idFile?: string;
  /** Time between heartbeats. Default 10,000 ms. */
  heartbeatIntervalMs?: number;
  /** First retry delay after a failure; it doubles on each further failure. Default 500 ms. */
  retryInitialDelayMs?: number;
  /** Longest retry delay. Default 30,000 ms. */
  retryMaxDelayMs?: number;
  /** Deadline of each call to the router. Default 5,000 ms. */
  requestTimeoutMs?: number;
  /**
   * A fetch to send the calls with (a proxy's, a test's). Default: `node:http` / `node:https`, which the server
   * has loaded anyway (the global `fetch` would load undici, about 6 MiB more in every service process).
   */
  fetch?: typeof fetch;
  /** Told about registrations, retries and deregistration. */
  onEvent?: (event: RegistrationEvent) => void;
}

/** Keeps a capability service registered with a router. */
export interface RegistrationClient {
  /** Starts registering, heartbeating and re-registering in the background. Idempotent. */
  start(): void;
  /**
   * Resolves with the registered target once the router has accepted the registration (it keeps retrying until
   * then). Rejects with `Canceled` if {@link RegistrationClient.stop} comes first.
   */
  ready(): Promise<ServiceTarget>;
  /** The id the router assigned (or the one read from `idFile`), if any. */
  id(): string | undefined;
  /** Stops heartbeating and deregisters (one attempt, bounded by `requestTimeoutMs`). Idempotent. */
  stop(): Promise<void>;
}

const DISCOVERY_PATH = "api/v1/management/discovery";
const HEARTBEAT_PATH = "api/v1/management/discovery/heartbeats";

interface Envelope<T> {
  error?: { message?: string } | null;
  data?: T | null;
}

/** The router's answer as its JSON envelope; undefined when it is not JSON. */
function envelopeOf<T>(response: RouterAnswer): Envelope<T> | undefined {
  try {
    return JSON.parse(response.text) as Envelope<T>;
  } catch {
    return undefined;
  }
}

function ok(response: RouterAnswer): boolean {
  return response.status >= 200 && response.status < 300;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}

async function readId(file: string | undefined): Promise<string | undefined> {
  if (!file) return undefined;
  try {
    const id = (await readFile(file, "utf8")).trim();
    return id === "" ? undefined : id;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

async function writeId(file: string, id: string): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  // Written aside then renamed, so a crash never leaves a half-written id behind.
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, `${id}\n`, { mode: 0o600 });
  await rename(temporary, file);
}

/**
 * Creates a client that registers a capability service with a Trestle (or Wanaku) router and keeps it
 * registered: `POST /api/v1/management/discovery` with the Wanaku `ServiceTarget` JSON (id `null` the first
 * time, then the id the router assigned, kept in `idFile` across restarts), a heartbeat
 * (`POST …/discovery/heartbeats`, the id as the text body) every `heartbeatIntervalMs`, a new registration when
 * the router answers a heartbeat with 404 (it forgot the service) or comes back after being unreachable, retries
 * with exponential backoff and jitter, and `DELETE /api/v1/management/discovery` on {@link RegistrationClient.stop}.
 *
 * @example
 * ```ts
 * const registration = createRegistrationClient({
 *   routerUrl: "http://localhost:8080",
 *   target: { serviceName: "weather", host: "127.0.0.1", port, serviceType: "tool-invoker", protocol: "connect" },
 *   idFile: ".weather/service.id",
 * });
 * registration.start();
 * ```
 */
export function createRegistrationClient(options: RegistrationClientOptions): RegistrationClient {
  const send = options.fetch ? fetchRouterRequest(options.fetch) : nodeRouterRequest;
  const heartbeatIntervalMs = options.heartbeatIntervalMs ?? 10_000;
  const requestTimeoutMs = options.requestTimeoutMs ?? 5_000;
  const backoff = createRetryBackoff(options.retryInitialDelayMs ?? 500, options.retryMaxDelayMs ?? 30_000);
  const base = options.routerUrl.endsWith("/") ? options.routerUrl : `${options.routerUrl}/`;
  const stopping = new AbortController();
  let id: string | undefined;
  let registeredOnce = false;
  let loop: Promise<void> | undefined;
  let stopped: Promise<void> | undefined;
  let resolveReady: (target: ServiceTarget) => void = () => undefined;
  let rejectReady: (error: TrestleError) => void = () => undefined;
  const ready = new Promise<ServiceTarget>((resolve, reject) => {
    resolveReady = resolve;
    rejectReady = reject;
  });
  // A caller who never asks for ready() must not see an unhandled rejection on stop().
  ready.catch(() => undefined);

  function targetJson(withId: string | undefined) {
    const t = options.target;
    return {
      id: withId ?? null,
      serviceName: t.serviceName,
      host: t.host,
      port: t.port,
      serviceType: t.serviceType,
      serviceSubType: t.serviceSubType ?? null,
      languageName: t.languageName ?? null,
      languageType: t.languageType ?? null,
      languageSubType: t.languageSubType ?? null,
      ...(t.protocol === undefined ? {} : { protocol: t.protocol }),
    };
  }

  async function call(method: string, path: string, body: string, contentType: string, signal: AbortSignal) {
    const headers: Record<string, string> = { "content-type": contentType, accept: "application/json" };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    try {
      return await send(new URL(path, base), {
        method,
        headers,
        body,
        signal: AbortSignal.any([signal, AbortSignal.timeout(requestTimeoutMs)]),
      });
    } catch (error) {
      // The message names the path only: the router URL may carry credentials.
      const reason = error instanceof Error ? error.message : String(error);
      throw new TrestleError(
        `The router could not be reached (${method} /${path}): ${reason}`,
        Code.Unavailable,
        {
          cause: error,
        },
      );
    }
  }

  function failure(response: RouterAnswer, what: string): TrestleError {
    let message = `${what} answered HTTP ${response.status}`;
    // A body that is not the envelope adds nothing a user could act on.
    const reason = envelopeOf(response)?.error?.message;
    if (reason) message += `: ${reason}`;
    const code =
      response.status === 401
        ? Code.Unauthenticated
        : response.status === 403
          ? Code.PermissionDenied
          : Code.Unavailable;
    return new TrestleError(message, code);
  }

  async function register(): Promise<void> {
    const response = await call(
      "POST",
      DISCOVERY_PATH,
      JSON.stringify(targetJson(id)),
      "application/json",
      stopping.signal,
    );
    if (!ok(response)) throw failure(response, "The router's registration");
    const assigned = envelopeOf<Partial<ServiceTarget>>(response)?.data?.id;
    if (typeof assigned !== "string" || assigned === "") {
      throw new TrestleError("The router's registration answer carries no service id", Code.Internal);
    }
    id = assigned;
    if (options.idFile) await writeId(options.idFile, assigned);
    const again = registeredOnce;
    registeredOnce = true;
    options.onEvent?.({ type: "registered", id: assigned, again });
    resolveReady({ ...options.target, id: assigned } as ServiceTarget);
  }

  /** True when the router still knows the service; false when it forgot it (404). */
  async function heartbeat(currentId: string): Promise<boolean> {
    const response = await call("POST", HEARTBEAT_PATH, currentId, "text/plain", stopping.signal);
    if (response.status === 404) return false;
    if (!ok(response)) throw failure(response, "The router's heartbeat");
    return true;
  }

  async function run(): Promise<void> {
    id = await readId(options.idFile).catch(() => undefined);
    let needsRegistration = true;
    let attempt = 0;
    while (!stopping.signal.aborted) {
      try {
        if (needsRegistration) {
          await register();
          needsRegistration = false;
          attempt = 0;
        }
        await sleep(heartbeatIntervalMs, stopping.signal);
        if (stopping.signal.aborted || id === undefined) break;
        if (!(await heartbeat(id))) {
          options.onEvent?.({ type: "forgotten", id });
          needsRegistration = true;
        } else {
          attempt = 0;
        }
      } catch (error) {
        if (stopping.signal.aborted) break;
        // Whatever went wrong, the router may have lost its state meanwhile: register again once it answers.
        needsRegistration = true;
        const delayMs = backoff.delayMs(attempt);
        options.onEvent?.({
          type: "retrying",
          error: TrestleError.from(error, Code.Unavailable),
          attempt,
          delayMs,
        });
        attempt++;
        await sleep(delayMs, stopping.signal);
      }
    }
  }

  async function deregister(): Promise<void> {
    if (!registeredOnce || id === undefined) return;
    const current = id;
    try {
      const response = await call(
        "DELETE",
        DISCOVERY_PATH,
        JSON.stringify(targetJson(current)),
        "application/json",
        new AbortController().signal,
      );
      if (!ok(response) && response.status !== 404) throw failure(response, "The router's deregistration");
      options.onEvent?.({ type: "deregistered", id: current });
    } catch (error) {
      options.onEvent?.({ type: "deregistration-failed", id: current, error: TrestleError.from(error) });
    }
  }

  return {
    start() {
      if (!loop && !stopping.signal.aborted) loop = run();
    },
    ready() {
      return ready;
    },
    id() {
      return id;
    },
    stop() {
      if (!stopped) {
        stopping.abort();
        rejectReady(
          new TrestleError("The registration was stopped before the router accepted it", Code.Canceled),
        );
        stopped = (async () => {
          await loop?.catch(() => undefined);
          await deregister();
        })();
      }
      return stopped;
    },
  };
}
