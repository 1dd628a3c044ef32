import type { ExchangedToken, FetchFunction, TokenExchangeOptions, TokenExchanger } from "@trestle/auth";
import { AuthError } from "@trestle/auth/errors";
import { createSecretValues, type SecretValues } from "@trestle/bridge";
import {
  type BridgeTransport,
  type CallOptions,
  Code,
  type CodeOutput,
  createContextValues,
  type Interceptor,
  type ServiceTarget,
  type TransportRequest,
  type TransportResponse,
  TrestleError,
  upstreamCredentialKey,
  withCredentialHeaders,
  withInterceptors,
} from "@trestle/core";
import type { UpstreamAuth } from "@trestle/core/catalog";
import { type CallerPrincipal, callerPrincipalKey } from "./calls/caller.js";

/**
 * How a transport carries the router's credential for an upstream: as call `metadata` (gRPC and Connect: the
 * `authorization` metadata of the call), or as `headers` of the call's HTTP requests (MCP and A2A upstreams, through
 * core's `upstreamCredentialKey`).
 */
export type CredentialDelivery = "metadata" | "headers";

/** Where the router's upstream credentials come from; see {@link createUpstreamCredentials}. */
export interface UpstreamCredentialSources {
  /** `services.<name>.upstreamAuth`, by service name: for the instances registered under that name. */
  services: Readonly<Record<string, { upstreamAuth?: UpstreamAuth | undefined }>>;
  /**
   * The credential of the forward behind `target`, per call (a static one is among the forward's headers already,
   * so only an exchanged one), `undefined` for a forward without one, `null` when `target` is no forward's.
   */
  forwardAuthFor(target: ServiceTarget): UpstreamAuth | undefined | null;
  /**
   * Whether an instance may receive the credential configured for its service name: one its service's owner (or
   * an admin) registered, as for the call secret. Every instance may when absent.
   */
  mayReceiveConfigured?(target: ServiceTarget): boolean;
  /** The OAuth access token `principal` came with (the exchange's subject); `undefined` for a static token. */
  bearerOf(principal: CallerPrincipal): string | undefined;
  /** The token endpoints' fetch (tests); `globalThis.fetch` by default. */
  fetch?: FetchFunction;
  /**
   * Makes a token exchanger (`@trestle/auth`'s `createTokenExchanger`), given when OAuth is configured: only an
   * OAuth caller has a token to exchange, so without it no exchanger is made (and `@trestle/auth` is not loaded).
   */
  createTokenExchanger?: (options: TokenExchangeOptions) => TokenExchanger;
}

/** The router's own credentials for its upstreams, put on each call below the call's events. */
export interface UpstreamCredentials {
  /** The interceptor that gives each call its upstream's credential, carried as `delivery` says. */
  interceptor(delivery: CredentialDelivery): Interceptor;
  /** Lets go of what is kept for `target` (a forward's exchanger and its cached tokens): it was released. */
  forget(target: ServiceTarget): void;
}

/** An upstream's credential, made ready: a static header, or the exchanger of its tokens. */
type ReadyAuth =
  | { kind: "static"; headers: Readonly<Record<string, string>> }
  /** No exchanger without OAuth (no caller has a token to exchange). */
  | { kind: "exchange"; exchanger: TokenExchanger | undefined };

/** What a call to a target needs: the target's credential and the name its refusals give the upstream. */
interface Resolved {
  auth: ReadyAuth;
  /** `service 'payments'`, or the forward's service name. */
  upstream: string;
}

/**
 * The exchanger of a `tokenExchange` configuration, its configuration errors named after `where`.
 * @throws Error naming `where` when the token endpoint or the client is unusable.
 */
function exchangerOf(
  tokenExchange: Extract<UpstreamAuth, { tokenExchange: unknown }>["tokenExchange"],
  where: string,
  fetch: FetchFunction | undefined,
  createTokenExchanger: UpstreamCredentialSources["createTokenExchanger"],
): TokenExchanger | undefined {
  if (createTokenExchanger === undefined) return undefined;
  try {
    return createTokenExchanger({
      tokenEndpoint: tokenExchange.tokenEndpoint,
      clientId: tokenExchange.clientId,
      clientSecret: tokenExchange.clientSecret,
      ...(tokenExchange.clientAuth ? { clientAuth: tokenExchange.clientAuth } : {}),
      ...(tokenExchange.audience !== undefined ? { audience: tokenExchange.audience } : {}),
      ...(tokenExchange.resource !== undefined ? { resource: tokenExchange.resource } : {}),
      ...(tokenExchange.scope !== undefined ? { scope: tokenExchange.scope } : {}),
      ...(fetch ? { fetch } : {}),
    });
  } catch (error) {
    if (AuthError.is(error)) throw new Error(`${where}.tokenExchange: ${error.message}`);
    throw error;
  }
}

function readyAuth(
  auth: UpstreamAuth,
  where: string,
  sources: Pick<UpstreamCredentialSources, "fetch" | "createTokenExchanger">,
): ReadyAuth {
  if ("static" in auth) {
    const header = (auth.static.header ?? "authorization").toLowerCase();
    return { kind: "static", headers: Object.freeze({ [header]: auth.static.value }) };
  }
  return {
    kind: "exchange",
    exchanger: exchangerOf(auth.tokenExchange, where, sources.fetch, sources.createTokenExchanger),
  };
}

/** The refusal of an exchange the token endpoint turned down or could not answer, naming the upstream. */
function exchangeFailure(error: unknown, upstream: string): TrestleError {
  if (!AuthError.is(error)) return TrestleError.from(error, Code.Unavailable);
  // The auth package's messages never hold the subject token or the client secret.
  return new TrestleError(
    `The token exchange for ${upstream} failed: ${error.message}`,
    error.code === "exchange_refused" ? Code.PermissionDenied : Code.Unavailable,
  );
}

/** `thrown` with the credential's values taken out of its message; `thrown` itself when it holds none. */
function scrubbedError(thrown: unknown, secrets: SecretValues): unknown {
  const error = TrestleError.from(thrown);
  const message = secrets.scrub(error.rawMessage);
  return message === error.rawMessage ? thrown : new TrestleError(message, error.code);
}

/** `request` with `credential` on it, carried as `delivery` says. */
function withCredential<R extends TransportRequest>(
  request: R,
  credential: Readonly<Record<string, string>>,
  delivery: CredentialDelivery,
): R {
  const options: CallOptions = { ...request.options };
  if (delivery === "metadata") {
    // Replaces any value of these names the call carried (a client header forwarded on an open router).
    options.metadata = withCredentialHeaders(options.metadata, credential);
  } else {
    options.contextValues = (options.contextValues ?? createContextValues()).set(
      upstreamCredentialKey,
      credential,
    );
  }
  return { ...request, options };
}

/**
 * The response of `next` for `request` once `credential` resolves, with the credential's values scrubbed from what
 * comes back (a result, an error's message): an upstream that echoes what it received cannot hand the router's
 * credential to the client, an event or a log. A code run's outputs are the program's and pass as they are.
 */
function sendWith<R extends TransportRequest>(
  next: (request: R) => TransportResponse<R>,
  request: R,
  credential: Promise<Readonly<Record<string, string>>>,
  delivery: CredentialDelivery,
): TransportResponse<R> {
  const secretsOf = (headers: Readonly<Record<string, string>>) => {
    const secrets = createSecretValues();
    for (const value of Object.values(headers)) secrets.add(value);
    return secrets;
  };
  if (request.method === "executeCode") {
    async function* run(): AsyncGenerator<CodeOutput> {
      const headers = await credential;
      try {
        yield* next(withCredential(request, headers, delivery)) as AsyncIterable<CodeOutput>;
      } catch (thrown) {
        throw scrubbedError(thrown, secretsOf(headers));
      }
    }
    return run() as unknown as TransportResponse<R>;
  }
  return credential.then(async (headers) => {
    const secrets = secretsOf(headers);
    try {
      const result = await (next(withCredential(request, headers, delivery)) as Promise<unknown>);
      return secrets.scrubDeep(result);
    } catch (thrown) {
      throw scrubbedError(thrown, secrets);
    }
  }) as TransportResponse<R>;
}

/**
 * Builds the router's upstream credentials: for a call to a service whose configuration has `upstreamAuth` (or to
 * a forward with one), the credential of that one call, added below the call's events (no event, log or history
 * ever holds it):
 *
 * - `static`: the configured header, on every call and health probe of the service;
 * - `tokenExchange`: a token for the upstream obtained by RFC 8693 exchange of the caller's own OAuth access token
 *   (its `subject_token`), one exchanger per upstream, cached per principal until the token expires, concurrent
 *   exchanges for one principal sharing one request. A caller that came with a static token (or none) has no token
 *   to exchange: its call is refused (`PermissionDenied` naming the upstream) rather than sent without credentials.
 *   Calls made for no caller (health probes, provisioning) carry none.
 *
 * The client's own token never goes upstream: only the credential replaces what the call carried under its names.
 * An instance registered under a configured service name receives its credential only when it may receive the
 * service's call secret.
 *
 * @throws Error naming `services.<name>.upstreamAuth` when a configured token exchange is unusable.
 */
export function createUpstreamCredentials(sources: UpstreamCredentialSources): UpstreamCredentials {
  const configured = new Map<string, ReadyAuth>();
  for (const [name, service] of Object.entries(sources.services)) {
    if (service.upstreamAuth) {
      configured.set(name, readyAuth(service.upstreamAuth, `services.${name}.upstreamAuth`, sources));
    }
  }
  const mayReceive = sources.mayReceiveConfigured ?? (() => true);
  /** Each forward's exchanger, made again when its configuration changes. */
  const forwards = new Map<string, { config: string; auth: ReadyAuth }>();
  /** The headers of each exchanged token: the same object for as long as the exchanger reuses the token. */
  const headersOf = new WeakMap<ExchangedToken, Readonly<Record<string, string>>>();

  function forwardAuth(target: ServiceTarget, auth: UpstreamAuth): ReadyAuth {
    const config = JSON.stringify(auth);
    const known = forwards.get(target.id);
    if (known?.config === config) return known.auth;
    const ready = readyAuth(auth, `the forward of service '${target.serviceName}'`, sources);
    forwards.set(target.id, { config, auth: ready });
    return ready;
  }

  function resolve(target: ServiceTarget): Resolved | undefined {
    const forward = sources.forwardAuthFor(target);
    if (forward !== null) {
      if (forward === undefined) {
        forwards.delete(target.id);
        return undefined;
      }
      return { auth: forwardAuth(target, forward), upstream: `service '${target.serviceName}'` };
    }
    const auth = configured.get(target.serviceName);
    if (auth === undefined || !mayReceive(target)) return undefined;
    return { auth, upstream: `service '${target.serviceName}'` };
  }

  async function exchanged(
    exchanger: TokenExchanger | undefined,
    principal: CallerPrincipal,
    upstream: string,
  ): Promise<Readonly<Record<string, string>>> {
    const bearer = sources.bearerOf(principal);
    if (bearer === undefined) {
      throw new TrestleError(
        `The ${upstream} needs an OAuth caller to exchange: its credential is a token exchanged for the caller's own access token, and '${principal.name}' came with none (a static token)`,
        Code.PermissionDenied,
      );
    }
    // Only an OAuth caller has a bearer, and with OAuth every exchange has its exchanger.
    if (exchanger === undefined)
      throw new TrestleError(
        `The ${upstream} exchanges tokens, and OAuth is not configured`,
        Code.FailedPrecondition,
      );
    let token: ExchangedToken;
    try {
      token = await exchanger.exchangeToken(bearer, principal.id);
    } catch (error) {
      throw exchangeFailure(error, upstream);
    }
    let headers = headersOf.get(token);
    if (headers === undefined) {
      headers = Object.freeze({ authorization: `Bearer ${token.accessToken}` });
      headersOf.set(token, headers);
    }
    return headers;
  }

  return {
    forget(target) {
      forwards.delete(target.id);
    },
    interceptor(delivery) {
      return (next) =>
        <R extends TransportRequest>(request: R): TransportResponse<R> => {
          const resolved = resolve(request.target);
          if (resolved === undefined) return next(request);
          const { auth, upstream } = resolved;
          if (auth.kind === "static") return sendWith(next, request, Promise.resolve(auth.headers), delivery);
          const principal = request.options.contextValues?.get(callerPrincipalKey);
          // A probe or a provisioning is made for no caller: it has nobody's token to exchange.
          if (principal === undefined) return next(request);
          return sendWith(next, request, exchanged(auth.exchanger, principal, upstream), delivery);
        };
    },
  };
}

/**
 * `transport` with the credentials' interceptor around every call, carried as `delivery` says; releasing a target
 * (a forward removed) also drops what the credentials kept for it.
 */
export function withUpstreamCredentials(
  transport: BridgeTransport,
  credentials: UpstreamCredentials,
  delivery: CredentialDelivery,
): BridgeTransport {
  const wrapped = withInterceptors(transport, [credentials.interceptor(delivery)]);
  const release = wrapped.release?.bind(wrapped);
  wrapped.release = (target) => {
    credentials.forget(target);
    release?.(target);
  };
  return wrapped;
}
