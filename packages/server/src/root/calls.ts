import {
  callEvents,
  concurrencyLimit,
  createCodeExecutionBridge,
  createEventHub,
  createInvokerBridge,
  createResourceBridge,
  type EventHub,
  type InvokerBridge,
  interceptTransports,
  outcomeFeedback,
  type ResourceBridge,
  scrubSecrets,
} from "@trestle/bridge";
import type { Interceptor, PromptResult } from "@trestle/core";
import { redactToolCallEvent } from "@trestle/core/redaction";
import type { TransportSelector } from "@trestle/core/routing";
import type { Registry } from "@trestle/registry";
import type { Logger } from "pino";
import type { CallPolicy } from "../calls/call-policy.js";
import { type CallService, createCallService } from "../calls/call-service.js";
import type { EngineLanguage } from "../calls/catalog-view.js";
import type { CodeModeRuns } from "../calls/code-mode-runs.js";
import { withCodeModeStubs } from "../calls/code-mode-stubs.js";
import { withToolSearch } from "../calls/tool-search-layer.js";
import type { RouterConfig } from "../config.js";
import type { ForwardDirectory } from "../forwards/forward-directory.js";
import { resolveForwardsFirst } from "../forwards/forward-resolver.js";
import { toMcpTool } from "../mcp/tool-listing.js";
import type { TelemetryModule } from "./telemetry.js";
import type { TransportsModule } from "./transports.js";

/** The call path: events, the bridges behind the interceptors, what the services offer, and the call service. */
export interface CallsModule {
  readonly events: EventHub;
  readonly calls: CallService;
  /** The call service without tool search: what a program's `tools` are served by (it sees every tool it may). */
  readonly codeModeCalls: CallService;
  /** For provisioning through the management API. */
  readonly invoker: InvokerBridge;
  readonly resources: ResourceBridge;
  /** The bridges' transports, with the interceptors (closed with the router). */
  readonly transports: TransportSelector & { close(): Promise<void> };
  /** True while a registered service could serve resources (a resource-provider or multi-capability service). */
  resourcesServable(): boolean;
  /** Tells `listener` each time the registered engines change (the code execution tool changes with them). */
  onEnginesChanged(listener: () => void): () => void;
  close(): void;
}

/** The engines registered and up, in a stable order, and whether any service could serve resources. */
function servicesOffer(registry: Registry): { engines: EngineLanguage[]; resources: boolean } {
  const seen = new Map<string, EngineLanguage>();
  let resources = false;
  for (const s of registry.services.list()) {
    if (s.health === "down") continue;
    const t = s.target;
    if (t.serviceType === "resource-provider" || t.serviceType === "multi-capability") resources = true;
    if (t.serviceType === "code-execution-engine" && t.serviceSubType && t.languageName) {
      seen.set(`${t.serviceSubType}/${t.languageName}`, {
        engineType: t.serviceSubType,
        language: t.languageName,
      });
    }
  }
  const engines = [...seen.values()].sort((a, b) =>
    `${a.engineType}/${a.language}`.localeCompare(`${b.engineType}/${b.language}`),
  );
  return { engines, resources };
}

/**
 * Builds the call path. Cross-cutting work on every call the bridges make, outermost first: the call is recorded
 * (STARTED, then one terminal event; a call a limit refuses too), `clientCodec` (what the client's MCP revision
 * cannot carry of a tool result, noted on the call's event from inside the recording), what comes back
 * is scrubbed of the call's secret values before the events see it, the call waits for a slot of its service, then
 * counts as load on the instance and feeds its circuit breaker until it settles. The capability call secret is
 * added innermost, per transport (see the transports module).
 */
export function createCallsModule(
  config: RouterConfig,
  deps: {
    registry: Registry;
    transports: TransportsModule;
    forwardDirectory: ForwardDirectory;
    clientCodec: Interceptor;
    /** Who may see and call what (the open policy when no rule is configured). */
    policy: CallPolicy;
    logger: Logger;
    /** Metric and tracing layers (see the telemetry module); none when absent. */
    telemetry?: TelemetryModule["interceptors"];
    /** Code mode's runs: each code run gets its caller's tools. */
    codeModeRuns?: CodeModeRuns;
  },
): CallsModule {
  const { registry, forwardDirectory, logger } = deps;
  const events = createEventHub({
    historySize: config.eventHistorySize,
    historyMaxBytes: config.eventHistoryMaxBytes,
    eventMaxBytes: config.eventMaxBytes,
  });
  const observed = deps.telemetry ?? {};
  // Metrics count from outside the limit (queued and refused calls too); the client span is innermost, so the
  // trace context it adds reaches the wire and its duration is the transport's.
  const transports = interceptTransports(deps.transports.probing, [
    callEvents({ sink: events }),
    deps.clientCodec,
    scrubSecrets(),
    ...(observed.calls ? [observed.calls] : []),
    concurrencyLimit((target) => deps.transports.limitOf(target.serviceName)),
    ...(observed.admitted ? [observed.admitted] : []),
    outcomeFeedback(registry.resolver),
    ...(observed.tracing ? [observed.tracing] : []),
  ]);
  // Forwards answer their own service names; the registry resolves the rest and says why one is unavailable.
  const bridgeDeps = {
    resolver: resolveForwardsFirst(forwardDirectory, registry.resolver),
    transports,
    events,
  };
  const invoker = createInvokerBridge(bridgeDeps);
  const resources = createResourceBridge(bridgeDeps);
  let offer = servicesOffer(registry);
  const enginesListeners = new Set<() => void>();
  const unsubscribeServices = registry.services.onEvent(() => {
    const next = servicesOffer(registry);
    const changed = JSON.stringify(next.engines) !== JSON.stringify(offer.engines);
    offer = changed ? next : { engines: offer.engines, resources: next.resources };
    if (changed) for (const listener of enginesListeners) listener();
  });
  const direct = createCallService({
    catalog: registry.catalog,
    invoker,
    resources,
    codeExecution: createCodeExecutionBridge(bridgeDeps),
    engines: () => offer.engines,
    codeExecutionToolName: config.codeExecutionToolName,
    // A forward's prompt comes back in the MCP SDK's wire types: MCP's content model, which core's is.
    forwardedPrompts: (prompt, args, options) =>
      forwardDirectory.getPrompt(prompt, args, options) as Promise<PromptResult>,
    maxConcurrentRunsPerPrincipal: config.maxConcurrentRunsPerPrincipal,
    policy: deps.policy,
    ...(deps.codeModeRuns ? { codeModeRuns: deps.codeModeRuns } : {}),
  });
  // Tool search only where configured: otherwise every front calls the call service itself.
  // Code mode's stubs (the code tool's description, two resources) while programs get tools.
  const described = config.codeMode.tools ? withCodeModeStubs(direct, toMcpTool) : direct;
  // Tool search where configured or where a namespace's label asks for it.
  const calls = withToolSearch(described, registry.catalog, config.toolSearch, toMcpTool);
  // Only a debug log wants every event: a subscriber at other levels would cost each call for nothing.
  const debugLog = logger.isLevelEnabled("debug")
    ? // The same name-based redaction as the event stream, again: a log outlives a stream and reaches more people.
      events.subscribe((event) => logger.debug({ event: redactToolCallEvent(event) }, "tool call"))
    : undefined;
  return {
    events,
    calls,
    codeModeCalls: direct,
    invoker,
    resources,
    transports,
    // The stubs are resources while an engine is registered.
    resourcesServable: () => offer.resources || (config.codeMode.tools && offer.engines.length > 0),
    onEnginesChanged(listener) {
      enginesListeners.add(listener);
      return () => enginesListeners.delete(listener);
    },
    close() {
      unsubscribeServices();
      debugLog?.unsubscribe();
      enginesListeners.clear();
    },
  };
}
