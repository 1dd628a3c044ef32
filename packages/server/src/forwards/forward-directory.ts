import type { ServerCapabilities } from "@modelcontextprotocol/sdk/types.js";
import {
  Code,
  type InputAnswers,
  type PromptReference,
  type ServiceTarget,
  TrestleError,
} from "@trestle/core";
import { describeForwardUpstream, type ForwardReference, type ForwardUpstream } from "@trestle/core/catalog";
import { normalizeNamespace } from "@trestle/registry";
import { importedName } from "./catalog-import.js";
import { connectionUpstream } from "./forward-credentials.js";
import { forwardTarget } from "./forward-identity.js";
import type { ForwardStatus } from "./forward-view.js";
import type { ForwardPromptResult, UpstreamCatalogWatch } from "./upstream-connector.js";

/**
 * A forward the router follows. The supervisor alone changes it; everyone else reads it through the
 * {@link ForwardDirectory}.
 */
export interface LiveForward {
  forward: ForwardReference;
  readonly namespace: string;
  /** The service name its imported entries are routed to. */
  readonly service: string;
  /** What a change must differ in to need a new watch. */
  readonly identity: string;
  watch?: UpstreamCatalogWatch | undefined;
  status: ForwardStatus;
  /** Imports run one at a time, in order. */
  queue: Promise<unknown>;
  retryTimer?: NodeJS.Timeout | undefined;
  retryDelayMs: number;
  stopped: boolean;
}

/** A forward's connection timeouts, its own settings over the router's defaults. */
export interface ForwardTimeouts {
  /** The first connection: spawn (or reach) and `initialize`, a first `npx -y` download included. */
  startTimeoutMs: number;
  /** Every later connection's `initialize`. */
  handshakeTimeoutMs: number;
}

/**
 * The forwards the router follows, by namespace and name and by service name: what the MCP transport asks for
 * the upstream behind a target (the directory fits `@trestle/transport-mcp`'s `McpUpstreamDirectory`, which
 * the composition root hands it as), what the resolver asks for a forward's target, what the MCP front asks
 * about upstreams' capabilities and prompts. It holds no connection and starts nothing: the supervisor fills it.
 */
export interface ForwardDirectory {
  /**
   * The upstream behind `target` as the router connects to it (a static `upstreamAuth` among its headers), or
   * `undefined` when it is no forward's.
   */
  upstreamFor(target: ServiceTarget): ForwardUpstream | undefined;
  /** The forward's upstream as stored (with its `upstreamAuth`), or `undefined` when `target` is no forward's. */
  storedUpstreamFor(target: ServiceTarget): ForwardUpstream | undefined;
  /** The handshake timeout of the forward behind `target`, or `undefined` when it is no forward's. */
  handshakeTimeoutFor(target: ServiceTarget): number | undefined;
  /** The upstream's own name of the prompt the forward behind `target` imported as `name`. */
  upstreamPromptName(target: ServiceTarget, name: string): string | undefined;
  /** The forward named `name` in `namespace`. */
  get(namespace: string, name: string): LiveForward | undefined;
  /** Every forward followed, in no particular order. */
  entries(): IterableIterator<LiveForward>;
  /** True when `serviceName` is a forward's. */
  isForwarded(serviceName: string): boolean;
  /** The target calls to the forward named by `serviceName` go to, or `undefined` when it is no forward's. */
  targetOf(serviceName: string): ServiceTarget | undefined;
  /** A forward's timeouts: its own settings, else the router's defaults. */
  timeoutsOf(forward: ForwardReference): ForwardTimeouts;
  /** The capabilities the upstreams of a namespace's forwards advertise (those connected at least once). */
  capabilitiesOf(namespace: string): { forward: string; capabilities: ServerCapabilities }[];
  /**
   * Expands a prompt imported from a forward by asking its upstream on the forward's watch connection.
   * @throws TrestleError `NotFound` (no forward's, or no longer offered), `Unavailable` (not connected), the
   * upstream's failure.
   */
  getPrompt(
    prompt: PromptReference,
    args: Record<string, string>,
    options?: { signal?: AbortSignal; input?: InputAnswers },
  ): Promise<ForwardPromptResult>;
  /** Makes `entry` the one answering for its name and service name (the supervisor's). */
  register(entry: LiveForward): void;
  /** Forgets `entry`, unless another entry answers for its names by now (the supervisor's). */
  unregister(entry: LiveForward): void;
}

const keyOf = (namespace: string, name: string) => `${namespace}\u0000${name}`;

/** The upstream prompt a forward imported under `name`, as its watch last listed it. */
function upstreamPrompt(entry: LiveForward, name: string): { name: string } | undefined {
  return entry.watch?.catalog.prompts.find((p) => importedName(entry.forward.prefix, p.name) === name);
}

/** Creates an empty {@link ForwardDirectory}; `defaults` are the router's forward timeouts. */
export function createForwardDirectory(defaults: ForwardTimeouts): ForwardDirectory {
  const byName = new Map<string, LiveForward>();
  const byService = new Map<string, LiveForward>();

  const timeoutsOf = (forward: ForwardReference): ForwardTimeouts => ({
    startTimeoutMs: forward.startTimeoutMs ?? defaults.startTimeoutMs,
    handshakeTimeoutMs: forward.handshakeTimeoutMs ?? defaults.handshakeTimeoutMs,
  });

  return {
    get: (namespace, name) => byName.get(keyOf(normalizeNamespace(namespace), name)),
    entries: () => byName.values(),
    isForwarded: (serviceName) => byService.has(serviceName),
    targetOf(serviceName) {
      const entry = byService.get(serviceName);
      return entry ? forwardTarget(entry.forward) : undefined;
    },
    timeoutsOf,

    upstreamFor(target): ForwardUpstream | undefined {
      const upstream = byService.get(target.serviceName)?.forward.upstream;
      return upstream === undefined ? undefined : connectionUpstream(upstream);
    },
    storedUpstreamFor(target): ForwardUpstream | undefined {
      return byService.get(target.serviceName)?.forward.upstream;
    },
    handshakeTimeoutFor(target) {
      const entry = byService.get(target.serviceName);
      return entry ? timeoutsOf(entry.forward).handshakeTimeoutMs : undefined;
    },
    upstreamPromptName(target, name) {
      const entry = byService.get(target.serviceName);
      return entry ? upstreamPrompt(entry, name)?.name : undefined;
    },

    capabilitiesOf(namespace) {
      const out: { forward: string; capabilities: ServerCapabilities }[] = [];
      for (const entry of byName.values()) {
        if (entry.namespace !== namespace) continue;
        const known = entry.watch?.catalog.capabilities;
        if (known) out.push({ forward: entry.forward.name, capabilities: known });
      }
      return out;
    },

    async getPrompt(prompt, args, callOptions = {}) {
      const entry = prompt.type ? byService.get(prompt.type) : undefined;
      if (!entry) {
        throw new TrestleError(`The prompt '${prompt.name}' belongs to no forward`, Code.NotFound);
      }
      const opened = entry.watch;
      if (!opened) {
        throw new TrestleError(
          `The MCP server ${describeForwardUpstream(entry.forward.upstream)} behind forward '${entry.forward.name}' is not connected${entry.status.error ? `: ${entry.status.error}` : ""}`,
          Code.Unavailable,
        );
      }
      const upstream = upstreamPrompt(entry, prompt.name);
      if (!upstream) {
        throw new TrestleError(
          `The forward '${entry.forward.name}' no longer offers the prompt '${prompt.name}'`,
          Code.NotFound,
        );
      }
      return opened.getPrompt(upstream.name, args, callOptions);
    },

    register(entry) {
      byName.set(keyOf(entry.namespace, entry.forward.name), entry);
      byService.set(entry.service, entry);
    },

    unregister(entry) {
      const key = keyOf(entry.namespace, entry.forward.name);
      if (byName.get(key) === entry) byName.delete(key);
      if (byService.get(entry.service) === entry) byService.delete(entry.service);
    },
  };
}
