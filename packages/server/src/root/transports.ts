import { readFileSync } from "node:fs";
import type { ConcurrencyLimit } from "@trestle/bridge";
import type { BridgeTransport, ServiceTarget, ServiceTimeouts, TlsOptions } from "@trestle/core";
import { createTransportSelector, type TransportSelector } from "@trestle/core/routing";
import { createGrpcTransport } from "@trestle/transport-grpc";
import { CAPABILITY_SECRET_METADATA_KEY, describeWanakuToolCall } from "@trestle/wanaku";
import type { Logger } from "pino";
import type { CallerPrincipal } from "../calls/caller.js";
import { type CapabilitySecretResolver, withCapabilitySecrets } from "../capability-secrets.js";
import { DEFAULT_MAX_QUEUED_CALLS, type RouterConfig } from "../config.js";
import { perCallUpstreamAuth } from "../forwards/forward-credentials.js";
import type { ForwardDirectory } from "../forwards/forward-directory.js";
import { A2A_PROTOCOL, MCP_PROTOCOL } from "../forwards/forward-identity.js";
import { lazyTransport } from "../lazy-transport.js";
import {
  createUpstreamCredentials,
  type UpstreamCredentialSources,
  withUpstreamCredentials,
} from "../upstream-credentials.js";
import { SERVER_VERSION } from "../version.js";
import type { ForwardSandbox } from "./forwards.js";
import { StartError } from "./start-error.js";

/** The transports by protocol, what the registry probes through, and each service's concurrency limit. */
export interface TransportsModule {
  readonly byProtocol: Readonly<Record<string, BridgeTransport>>;
  /** Picks a target's transport (by its service's configured protocol, else its registered one). */
  readonly probing: TransportSelector;
  /** The configured concurrency limit of a service, if any. */
  limitOf(serviceName: string): ConcurrencyLimit | undefined;
}

/** What the transports are built from. */
export interface TransportsDependencies {
  config: RouterConfig;
  /** Each capability's call secret, added below the bridge so no event or log ever holds it. */
  secretFor: CapabilitySecretResolver;
  /**
   * Whether an instance may receive what is configured for its service name (its call secret, its upstream
   * credential): one its service's owner, or an admin, registered.
   */
  mayReceiveConfigured?: (target: ServiceTarget) => boolean;
  /** The OAuth access token a principal came with: the subject of an upstream's token exchange. */
  bearerOf: (principal: CallerPrincipal) => string | undefined;
  /** Makes an upstream's token exchanger; given with OAuth (see {@link UpstreamCredentialSources}). */
  createTokenExchanger?: UpstreamCredentialSources["createTokenExchanger"];
  /** The forwards' upstreams (MCP servers and A2A agents) by service. */
  forwardDirectory: ForwardDirectory;
  /** Where stdio forwards run. */
  forwardSandbox: ForwardSandbox;
  logger: Logger;
  /** Extra or replacement transports by protocol name. */
  extra?: Record<string, BridgeTransport>;
  /**
   * The transports of the configured plugins by protocol (see transport-plugins.ts): each gets the call secret
   * and upstream credential wrappers the Wanaku transports get, in its calls' `metadata`.
   */
  plugins?: Record<string, BridgeTransport>;
}

function readPem(path: string | undefined): Buffer | undefined {
  return path ? readFileSync(path) : undefined;
}

/** The router's client TLS settings for services (`tlsCaFile`, `tlsCertFile`, `tlsKeyFile`), when any is set. */
export function routerTls(config: RouterConfig): TlsOptions | undefined {
  const tls = {
    ...(config.tlsCaFile ? { ca: readPem(config.tlsCaFile) as Buffer } : {}),
    ...(config.tlsCertFile ? { cert: readPem(config.tlsCertFile) as Buffer } : {}),
    ...(config.tlsKeyFile ? { key: readPem(config.tlsKeyFile) as Buffer } : {}),
  };
  return Object.keys(tls).length > 0 ? tls : undefined;
}

/** Each service's own deadlines (`services.<name>.unaryTimeoutMs`, `streamTimeoutMs`), for a transport. */
export function serviceTimeouts(
  config: RouterConfig,
): (target: ServiceTarget) => ServiceTimeouts | undefined {
  return (target) => {
    const s = config.services[target.serviceName];
    return s
      ? {
          ...(s.unaryTimeoutMs ? { unaryMs: s.unaryTimeoutMs } : {}),
          ...(s.streamTimeoutMs ? { streamMs: s.streamTimeoutMs } : {}),
        }
      : undefined;
  };
}

/**
 * Builds a transport for each protocol the router speaks to services: gRPC (always loaded: the built-ins and
 * Wanaku capabilities speak it), Connect, MCP forwards and A2A forwards (each loaded when first used), the
 * configured transport plugins, and any the caller adds. Only this module and the forwards module name a wire.
 *
 * @throws StartError when a service's configured `protocol` names no transport.
 */
export function createTransportsModule(deps: TransportsDependencies): TransportsModule {
  const { config, secretFor, forwardDirectory, forwardSandbox, logger } = deps;
  const tls = routerTls(config);
  // Each upstream's own credential (services.<name>.upstreamAuth, a forward's), per call, below the events.
  const credentials = createUpstreamCredentials({
    services: config.services,
    forwardAuthFor: (target) => {
      const upstream = forwardDirectory.storedUpstreamFor(target);
      return upstream === undefined ? null : perCallUpstreamAuth(upstream);
    },
    ...(deps.mayReceiveConfigured ? { mayReceiveConfigured: deps.mayReceiveConfigured } : {}),
    bearerOf: deps.bearerOf,
    ...(deps.createTokenExchanger ? { createTokenExchanger: deps.createTokenExchanger } : {}),
  });
  const timeouts = serviceTimeouts(config);
  const byProtocol: Record<string, BridgeTransport> = {
    grpc: withUpstreamCredentials(
      withCapabilitySecrets(
        createGrpcTransport({
          unaryTimeoutMs: config.unaryTimeoutMs,
          streamTimeoutMs: config.streamTimeoutMs,
          timeouts,
          ...(tls ? { tls } : {}),
          // The transport falls back to the target's own dialect.
          dialectFor: (target) => config.services[target.serviceName]?.dialect,
        }),
        secretFor,
        CAPABILITY_SECRET_METADATA_KEY,
      ),
      credentials,
      "metadata",
    ),
    connect: withUpstreamCredentials(
      withCapabilitySecrets(
        // Loaded when a service that speaks Connect is first called: most routers have none.
        lazyTransport(
          async () =>
            (await import("@trestle/transport-connect")).createConnectTransport({
              unaryTimeoutMs: config.unaryTimeoutMs,
              streamTimeoutMs: config.streamTimeoutMs,
              timeouts,
              ...(tls ? { tls } : {}),
            }),
          // Connect carries Wanaku's messages: until it is loaded, its calls are described by Wanaku's rules.
          { describeToolCall: (call) => describeWanakuToolCall(call) },
        ),
        secretFor,
        CAPABILITY_SECRET_METADATA_KEY,
      ),
      credentials,
      "metadata",
    ),
    // Forwards: existing MCP servers, found in the forward directory (filled once the catalog is open).
    [MCP_PROTOCOL]: withUpstreamCredentials(
      lazyTransport(async () =>
        (await import("@trestle/transport-mcp")).createMcpTransport({
          // The MCP transport sees the MCP forwards only; A2A agents are the A2A transport's.
          directory: {
            upstreamFor: (target) => {
              const upstream = forwardDirectory.upstreamFor(target);
              return upstream?.kind === "a2a" ? undefined : upstream;
            },
            handshakeTimeoutFor: (target) => forwardDirectory.handshakeTimeoutFor(target),
            upstreamPromptName: (target, name) => forwardDirectory.upstreamPromptName(target, name),
          },
          unaryTimeoutMs: config.unaryTimeoutMs,
          timeouts,
          sandbox: await forwardSandbox.get(),
          perCallLimit: { maxProcesses: config.forwardMaxPerCallProcesses },
          clientInfo: { name: "trestle", version: SERVER_VERSION },
          // A 2026-07-28 upstream is told what the router's client can answer, no more.
          clientCapabilities: (callOptions) => callOptions?.inputCapabilities,
          // An upstream's messages are not tied to a call; their data may quote anything, so only their level shows.
          onLog: ({ target, upstream, message }) =>
            logger.debug(
              { service: target.serviceName, upstream, level: message.level },
              "forwarded server logged",
            ),
        }),
      ),
      credentials,
      "headers",
    ),
    // A2A forwards: agents whose skills are imported as tools, found in the same directory.
    [A2A_PROTOCOL]: withUpstreamCredentials(
      lazyTransport(async () =>
        (await import("@trestle/transport-a2a")).createA2aTransport({
          directory: {
            agentFor: (target) => {
              const upstream = forwardDirectory.upstreamFor(target);
              return upstream?.kind === "a2a"
                ? { url: upstream.url, ...(upstream.headers ? { headers: upstream.headers } : {}) }
                : undefined;
            },
          },
        }),
      ),
      credentials,
      "headers",
    ),
    // Plugins carry Wanaku-style metadata: the call secret and the upstream credential go with each call's.
    ...Object.fromEntries(
      Object.entries(deps.plugins ?? {}).map(([protocol, transport]) => [
        protocol,
        withUpstreamCredentials(
          withCapabilitySecrets(transport, secretFor, CAPABILITY_SECRET_METADATA_KEY),
          credentials,
          "metadata",
        ),
      ]),
    ),
    ...deps.extra,
  };
  const byServiceName: Record<string, BridgeTransport> = {};
  for (const [name, service] of Object.entries(config.services)) {
    if (!service.protocol) continue;
    const transport = byProtocol[service.protocol];
    if (!transport)
      throw new StartError(
        `services.${name}.protocol names '${service.protocol}', which no transport speaks (known: ${Object.keys(byProtocol).join(", ")}; a plugin's protocol is added under transports)`,
      );
    byServiceName[name] = transport;
  }
  // Per-service concurrency limits hold calls before they reach a transport; health probes pass through.
  const limits = new Map<string, ConcurrencyLimit>();
  for (const [name, service] of Object.entries(config.services)) {
    if (service.maxConcurrentCalls === undefined) continue;
    limits.set(name, {
      maxConcurrentCalls: service.maxConcurrentCalls,
      maxQueuedCalls: service.maxQueuedCalls ?? DEFAULT_MAX_QUEUED_CALLS,
      unaryTimeoutMs: service.unaryTimeoutMs ?? config.unaryTimeoutMs,
      streamTimeoutMs: service.streamTimeoutMs ?? config.streamTimeoutMs,
    });
  }
  return {
    byProtocol,
    probing: createTransportSelector({ byProtocol, byServiceName }),
    limitOf: (serviceName) => limits.get(serviceName),
  };
}
