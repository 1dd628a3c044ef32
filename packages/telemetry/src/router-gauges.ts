import { Gauge, type Registry } from "prom-client";

/** The states a service instance's circuit can be in (as the registry's circuit breaker names them). */
export const CIRCUIT_STATES = ["closed", "open", "half-open"] as const;

/** One registered service instance's circuit. */
export interface CircuitReading {
  service: string;
  /** The registration id: bounded by what is registered. */
  instance: string;
  state: (typeof CIRCUIT_STATES)[number];
}

/** Where the router's state gauges read from, at each scrape (nothing is sampled in between). */
export interface RouterStateSources {
  /** MCP sessions open (the legacy revisions' `Mcp-Session-Id` sessions). */
  mcpSessions?(): number;
  /** `subscriptions/listen` streams open (MCP 2026-07-28). */
  listenStreams?(): number;
  /** Every registered instance's circuit. */
  circuits?(): Iterable<CircuitReading>;
}

/**
 * Registers the gauges of the router's state in `registry`, read from `sources` when scraped:
 * `trestle_mcp_sessions`, `trestle_mcp_listen_streams`, `trestle_service_circuit_state` (1 for the state an
 * instance's circuit is in, 0 for the others).
 */
export function registerRouterGauges(registry: Registry, sources: RouterStateSources): void {
  const registers = [registry];
  const { mcpSessions, listenStreams, circuits } = sources;
  if (mcpSessions) {
    new Gauge({
      name: "trestle_mcp_sessions",
      help: "MCP sessions open on this router process.",
      registers,
      collect() {
        this.set(mcpSessions());
      },
    });
  }
  if (listenStreams) {
    new Gauge({
      name: "trestle_mcp_listen_streams",
      help: "MCP subscriptions/listen streams open on this router process.",
      registers,
      collect() {
        this.set(listenStreams());
      },
    });
  }
  if (circuits) {
    new Gauge({
      name: "trestle_service_circuit_state",
      help: "The circuit of each registered service instance as this router process sees it: 1 for its current state, 0 for the others.",
      labelNames: ["service", "instance", "state"],
      registers,
      collect() {
        // Instances come and go: start from nothing, so a deregistered one leaves no stale series.
        this.reset();
        for (const reading of circuits()) {
          for (const state of CIRCUIT_STATES) {
            this.set(
              { service: reading.service, instance: reading.instance, state },
              reading.state === state ? 1 : 0,
            );
          }
        }
      },
    });
  }
}
