import {
  type CapabilityDefinition,
  type CapabilityServiceOptions,
  type RunningCapabilityService,
  startCapabilityService,
} from "@trestle/capability";
import type { CapabilityHandlers } from "@trestle/wanaku";

import { createHttpService, type HttpServiceOptions } from "./http-service.js";

/** Options for {@link startHttpService}: the service's own options plus where to listen and register. */
export interface StartHttpServiceOptions extends HttpServiceOptions, CapabilityServiceOptions {
  /** Name to register under. Default `http`. */
  serviceName?: string;
}

/** A started HTTP tool invoker. */
export type RunningHttpService = RunningCapabilityService;

/**
 * The HTTP tool invoker as a capability: {@link createHttpService}'s handlers, registered as service `http`
 * (or `serviceName`), type `tool-invoker`.
 */
export const httpCapability: CapabilityDefinition<StartHttpServiceOptions, CapabilityHandlers> = {
  name: "http",
  handlers: (setup) => createHttpService(setup),
  registration: (setup) => ({ serviceName: setup.serviceName ?? "http", serviceType: "tool-invoker" }),
};

/**
 * Starts the HTTP tool invoker: a capability server with {@link createHttpService}'s handlers, listening on
 * `host:port`, registered (and kept registered) with the router as service `http`, type `tool-invoker`, when
 * `routerUrl` is given.
 *
 * @throws when the port cannot be bound.
 */
export function startHttpService(options: StartHttpServiceOptions = {}): Promise<RunningHttpService> {
  return startCapabilityService(httpCapability, options);
}
