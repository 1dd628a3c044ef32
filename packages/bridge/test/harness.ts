import type {
  BridgeTransport,
  ContentBlock,
  ServiceHandlers,
  ServiceTarget,
  ServiceType,
} from "@trestle/core";
import type { ToolCallEvent, ToolCallEventSink } from "@trestle/core/events";
import { createInMemoryNetwork, createInMemoryTransport } from "@trestle/core/in-memory";
import {
  type CallOutcomeListener,
  createTransportSelector,
  type ServiceResolver,
  type TransportSelector,
} from "@trestle/core/routing";
import { type CapabilityHandlers, fromCapabilityHandlers } from "@trestle/wanaku";
import {
  type BridgeDependencies,
  callEvents,
  interceptTransports,
  outcomeFeedback,
  scrubSecrets,
} from "../src/index.js";

/** The text of a text block; undefined for any other block. */
export function textOf(block: ContentBlock | undefined): string | undefined {
  return block?.type === "text" ? block.text : undefined;
}

/** A resolver over a fixed list of targets, recording what it was asked. */
export interface ListResolver extends ServiceResolver {
  targets: ServiceTarget[];
  asked: string[];
}

/** Matches the way the registry resolves: by name and type, `multi-capability` serving every type. */
export function createListResolver(targets: ServiceTarget[] = []): ListResolver {
  const asked: string[] = [];
  return {
    targets,
    asked,
    async resolve(serviceName, serviceType) {
      asked.push(`${serviceName}/${serviceType}`);
      return targets.find(
        (t) =>
          t.serviceName === serviceName &&
          (t.serviceType === serviceType || t.serviceType === "multi-capability"),
      );
    },
    async resolveCodeExecution(engineType, language) {
      asked.push(`code-execution-engine/${engineType}/${language}`);
      return targets.find(
        (t) =>
          t.serviceType === "code-execution-engine" &&
          t.serviceSubType === engineType &&
          t.languageName === language,
      );
    },
  };
}

/** Records outcome notifications as `started:<id>` and `ended:<id>:<serviceFailure>`. */
export function createOutcomeLog(): CallOutcomeListener & { log: string[] } {
  const log: string[] = [];
  return {
    log,
    callStarted(target) {
      log.push(`started:${target.id}`);
    },
    callEnded(target, serviceFailure) {
      log.push(`ended:${target.id}:${serviceFailure}`);
    },
  };
}

/** In-memory capabilities, a list resolver, an event log and a fake clock, wired as bridge dependencies. */
export interface Harness {
  deps: BridgeDependencies;
  events: ToolCallEvent[];
  resolver: ListResolver;
  outcomes: ReturnType<typeof createOutcomeLog>;
  transport: BridgeTransport;
  /**
   * The dependencies with events going to `sink` instead of {@link events}: both the bridge's own (calls never
   * dispatched) and the `callEvents` interceptor's.
   */
  depsWithEvents(sink: ToolCallEventSink): BridgeDependencies;
  /** Advances the fake clock. */
  advance(ms: number): void;
  /** Serves Wanaku `handlers` (over the Wanaku contract) and registers the target with the resolver. */
  serve(
    handlers: CapabilityHandlers,
    target: { serviceName: string; serviceType: ServiceType } & Partial<ServiceTarget>,
  ): ServiceTarget;
  /**
   * Serves neutral `handlers` as they are (no Wanaku contract in between: what a transport that speaks MCP's
   * content model delivers), and registers the target with the resolver.
   */
  serveNeutral(
    handlers: ServiceHandlers,
    target: { serviceName: string; serviceType: ServiceType } & Partial<ServiceTarget>,
  ): ServiceTarget;
  /** A registered target on which nothing is served. */
  registerDead(serviceName: string, serviceType: ServiceType): ServiceTarget;
  close(): Promise<void>;
}

export function createHarness(): Harness {
  const network = createInMemoryNetwork();
  const transport = createInMemoryTransport({ network });
  const resolver = createListResolver();
  const outcomes = createOutcomeLog();
  const selector = createTransportSelector({ byProtocol: { grpc: transport } });
  const events: ToolCallEvent[] = [];
  const closers: (() => Promise<void>)[] = [];
  let now = 1_000_000;
  let nextId = 0;
  const clock = () => now;
  const newId = () => `event-${++nextId}`;
  const depsWithEvents = (sink: ToolCallEventSink): BridgeDependencies => {
    // As the router composes them: events outermost, then the scrubbing, then the resolver's outcome feedback.
    const transports: TransportSelector = interceptTransports(selector, [
      callEvents({ sink, clock, newId }),
      scrubSecrets(),
      outcomeFeedback(outcomes),
    ]);
    return { resolver, transports, events: sink, clock, newId };
  };
  const deps = depsWithEvents({ emit: (event) => events.push(event) });
  return {
    events,
    resolver,
    outcomes,
    transport,
    deps,
    depsWithEvents,
    advance(ms) {
      now += ms;
    },
    serve(handlers, target) {
      return this.serveNeutral(fromCapabilityHandlers(handlers), target);
    },
    serveNeutral(handlers, target) {
      const served = network.serve(handlers, {
        serviceName: target.serviceName,
        serviceType: target.serviceType,
      });
      closers.push(() => served.close());
      const full = { ...served.target, ...target };
      resolver.targets.push(full);
      return full;
    },
    registerDead(serviceName, serviceType) {
      const dead: ServiceTarget = {
        id: `dead-${serviceName}`,
        serviceName,
        host: "nowhere",
        port: 9,
        serviceType,
      };
      resolver.targets.push(dead);
      return dead;
    },
    async close() {
      await Promise.all(closers.map((c) => c()));
      await selector.close();
    },
  };
}

/** Parses the JSON the reference capability's `echo://` tool answers with. */
export function echoed(text: string | undefined): Record<string, unknown> & {
  arguments: Record<string, string>;
  headers: Record<string, string>;
  metadata: Record<string, string>;
} {
  return JSON.parse(text ?? "{}");
}
