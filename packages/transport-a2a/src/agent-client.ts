import { AgentCard } from "@a2a-js/sdk";
import {
  type Client,
  ClientFactory,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  RestTransportFactory,
  type TransportFactory,
} from "@a2a-js/sdk/client";
import type * as grpc from "@grpc/grpc-js";
import { Code, TrestleError } from "@trestle/core";

/** An A2A agent behind the router: where its card is, and the credentials its card asks for. */
export interface A2aAgent {
  /**
   * The agent's base URL: its card is read from `<url>/.well-known/agent-card.json` (a URL ending in `.json` is
   * taken as the card's own). Calls go to the interface the card names, never to this URL.
   */
  url: string;
  /** Headers sent with every request, the card's included (e.g. `Authorization`). Their values are never shown. */
  headers?: Record<string, string>;
}

/** The well-known path of an agent card under the agent's base URL. */
export const AGENT_CARD_PATH = "/.well-known/agent-card.json";

/** A client of one agent, with the card it was made from and the A2A version it speaks. */
export interface AgentConnection {
  client: Client;
  card: AgentCard;
  /** `1.0`, or `0.3` for an agent whose card is a v0.3 card. */
  version: string;
}

/** The agent's origin, the only part of its URL ever shown (paths and queries may hold tokens). */
export function agentOrigin(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return "an invalid URL";
  }
}

/**
 * Reads a v1.0 card in either of the forms agents publish: the proto JSON form the specification gives
 * (`{"httpAuthSecurityScheme": {...}}`), or the SDK's in-memory form that an `@a2a-js/sdk` agent serialises as
 * it is (`{"scheme": {"$case": ...}}`), with every absent list and field given its default.
 */
export function normalizeV1Card(raw: unknown): AgentCard {
  if (typeof raw !== "object" || raw === null) throw new Error("the card is not a JSON object");
  const card = { ...(raw as Record<string, unknown>) };
  const schemes = card.securitySchemes;
  if (typeof schemes === "object" && schemes !== null) {
    card.securitySchemes = Object.fromEntries(
      Object.entries(schemes as Record<string, unknown>).map(([name, scheme]) => {
        const oneof = (scheme as { scheme?: { $case?: unknown; value?: unknown } } | null)?.scheme;
        return [name, typeof oneof?.$case === "string" ? { [oneof.$case]: oneof.value } : scheme];
      }),
    );
  }
  return AgentCard.fromJSON(card);
}

/** The SDK's card resolver, with v1.0 cards read by {@link normalizeV1Card} (v0.3 cards as the SDK reads them). */
class CardResolver extends DefaultAgentCardResolver {
  override normalizeAgentCard(card: unknown): AgentCard {
    const legacy = super.normalizeAgentCard(card);
    if (legacy.supportedInterfaces?.some((i) => i.protocolVersion.startsWith("0."))) return legacy;
    return normalizeV1Card(card);
  }
}

function fetchWith(
  headers: Record<string, string> | undefined,
  signal: AbortSignal | undefined,
): typeof fetch {
  return (input, init) => {
    const merged = new Headers(init?.headers);
    for (const [name, value] of Object.entries(headers ?? {})) {
      if (!merged.has(name)) merged.set(name, value);
    }
    const signals = [init?.signal, signal].filter((s): s is AbortSignal => s != null);
    return fetch(input, {
      ...init,
      headers: merged,
      ...(signals.length > 0 ? { signal: signals.length === 1 ? signals[0] : AbortSignal.any(signals) } : {}),
    });
  };
}

/**
 * A grpc-js interceptor that sends the agent's configured headers as call metadata (the gRPC binding's headers),
 * without overriding what the SDK set itself (`A2A-Version`).
 */
function metadataFrom(grpcJs: typeof grpc, headers: Record<string, string> | undefined): grpc.Interceptor {
  return (options, nextCall) =>
    new grpcJs.InterceptingCall(nextCall(options), {
      start(metadata, listener, next) {
        for (const [name, value] of Object.entries(headers ?? {})) {
          const key = name.toLowerCase();
          if (metadata.get(key).length === 0) metadata.set(key, value);
        }
        next(metadata, listener);
      },
    });
}

/**
 * The gRPC binding, loaded (the SDK's gRPC client and grpc-js, about 9 MiB) only when an agent's card names a gRPC
 * interface: TLS when the agent is reached over https, plaintext (as its http card says) otherwise.
 */
function lazyGrpcTransportFactory(
  tls: boolean,
  headers: Record<string, string> | undefined,
): TransportFactory {
  return {
    protocolName: "GRPC",
    async create(endpoint, card) {
      const [{ GrpcTransportFactory }, grpcJs] = await Promise.all([
        import("@a2a-js/sdk/client/grpc"),
        import("@grpc/grpc-js"),
      ]);
      return new GrpcTransportFactory({
        grpcChannelCredentials: tls ? grpcJs.credentials.createSsl() : grpcJs.credentials.createInsecure(),
        grpcCallOptions: { interceptors: [metadataFrom(grpcJs, headers)] },
        legacyCompat: { enabled: true },
      }).create(endpoint, card);
    },
  };
}

/**
 * Refuses an interface of the card outside what the operator configured: the card is the agent's to write, and the
 * forward's credentials go wherever it points. An HTTP interface (JSON-RPC, HTTP+JSON) must share the configured
 * URL's origin — scheme, host and port, so no downgrade from https either; a gRPC one (`host:port`) its host, over
 * TLS exactly when the configured URL is https.
 *
 * @throws TrestleError `PermissionDenied` naming both origins.
 */
export function checkInterfaceUrl(endpoint: string, configured: URL): void {
  let interfaceUrl: URL | undefined;
  try {
    interfaceUrl = new URL(endpoint);
  } catch {
    interfaceUrl = undefined;
  }
  const web = interfaceUrl && (interfaceUrl.protocol === "http:" || interfaceUrl.protocol === "https:");
  const where = web && interfaceUrl ? interfaceUrl.origin : endpoint.split("/")[0];
  const allowed = web
    ? interfaceUrl?.origin === configured.origin
    : (new URL(`grpc://${endpoint.replace(/^[a-z+.-]+:\/\//i, "")}`).hostname ?? "") === configured.hostname;
  if (allowed) return;
  throw new TrestleError(
    `The A2A agent at ${configured.origin} names an interface at ${where ?? "(an invalid address)"}, outside the origin the forward was configured with: the router sends the forward's credentials only there`,
    Code.PermissionDenied,
  );
}

/** `factory`, checking each interface URL the client is about to use against the configured URL first. */
function confined(factory: TransportFactory, configured: URL): TransportFactory {
  return {
    get protocolName() {
      return factory.protocolName;
    },
    async create(endpoint, card) {
      checkInterfaceUrl(endpoint, configured);
      return factory.create(endpoint, card);
    },
  };
}

/**
 * Reads the agent's card and makes a client for the interface it names (JSON-RPC, HTTP+JSON or gRPC, v1.0 or, for a
 * v0.3 card, v0.3 with v0.3 method names), sending `headers` with every request. `signal` bounds the card's
 * read only.
 *
 * @throws TrestleError `Unavailable` when the card cannot be read, `InvalidArgument` when it is no agent card or
 * names no interface this transport speaks.
 */
export async function connectAgent(agent: A2aAgent, signal?: AbortSignal): Promise<AgentConnection> {
  const origin = agentOrigin(agent.url);
  let url: URL;
  try {
    url = new URL(agent.url);
  } catch {
    throw new TrestleError("The A2A agent's URL is not a valid URL", Code.InvalidArgument);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new TrestleError(
      `The A2A agent's URL must be http or https, not ${url.protocol}`,
      Code.InvalidArgument,
    );
  }
  const cardFetch = fetchWith(agent.headers, signal);
  const callFetch = fetchWith(agent.headers, undefined);
  const legacyCompat = { enabled: true };
  const factory = new ClientFactory({
    transports: [
      new JsonRpcTransportFactory({ fetchImpl: callFetch, legacyCompat }),
      new RestTransportFactory({ fetchImpl: callFetch, legacyCompat }),
      lazyGrpcTransportFactory(url.protocol === "https:", agent.headers),
    ].map((factory) => confined(factory, url)),
    cardResolver: new CardResolver({ fetchImpl: cardFetch, legacyCompat }),
  });
  const cardUrl = url.pathname.endsWith(".json")
    ? agent.url
    : `${agent.url.replace(/\/+$/, "")}${AGENT_CARD_PATH}`;
  let client: Client;
  try {
    client = await factory.createFromUrl(cardUrl, "");
  } catch (error) {
    if (signal?.aborted) throw TrestleError.from(signal.reason, Code.Canceled);
    if (error instanceof TrestleError) throw error;
    const message = error instanceof Error ? error.message : String(error);
    const unreachable = /fetch failed|ECONNREFUSED|ENOTFOUND|Failed to fetch|status/i.test(message);
    throw new TrestleError(
      unreachable
        ? `The A2A agent at ${origin} could not be reached for its card (${AGENT_CARD_PATH})`
        : `The A2A agent at ${origin} has no usable agent card: ${scrub(message, agent)}`,
      unreachable ? Code.Unavailable : Code.InvalidArgument,
    );
  }
  const card = await client.getAgentCard();
  return { client, card, version: client.protocolVersion || "1.0" };
}

/** `text` with the agent's header values and URL (past its origin) taken out. */
export function scrub(text: string, agent: A2aAgent): string {
  let out = text;
  for (const value of Object.values(agent.headers ?? {})) {
    if (value.length >= 4) out = out.split(value).join("[REDACTED]");
    const token = value.replace(/^(Bearer|Basic)\s+/i, "");
    if (token.length >= 4) out = out.split(token).join("[REDACTED]");
  }
  const origin = agentOrigin(agent.url);
  if (agent.url.length > origin.length) out = out.split(agent.url).join(origin);
  return out;
}
