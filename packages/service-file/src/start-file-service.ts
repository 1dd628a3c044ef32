import { join } from "node:path";
import {
  type CapabilityDefinition,
  type CapabilityServiceOptions,
  type RunningCapabilityService,
  startCapabilityService,
} from "@trestle/capability";
import type { CapabilityHandlers } from "@trestle/wanaku";

import { createFileService, type FileServiceOptions } from "./file-service.js";

/** Trestle's state directory, relative to the working directory: never served by {@link startFileService}. */
export const TRESTLE_STATE_DIRECTORY = ".trestle";

/** Options for {@link startFileService}: the service's own options plus where to listen and register. */
export interface StartFileServiceOptions extends FileServiceOptions, CapabilityServiceOptions {
  /** Name to register under. Default `file`. */
  serviceName?: string;
}

/** A started file resource provider. */
export type RunningFileService = RunningCapabilityService;

/**
 * The file resource provider as a capability: {@link createFileService}'s handlers, never serving the
 * `.trestle` directory of the working directory, registered as service `file` (or `serviceName`), type
 * `resource-provider`.
 */
export const fileCapability: CapabilityDefinition<StartFileServiceOptions, CapabilityHandlers> = {
  name: "file",
  handlers: (setup) =>
    createFileService({
      ...setup,
      // Trestle's state directory in the working directory (the router's default data directory and every
      // built-in's home, with their provisioned secrets) is never a file to serve.
      excludedRoots: [...(setup.excludedRoots ?? []), join(process.cwd(), TRESTLE_STATE_DIRECTORY)],
    }),
  registration: (setup) => ({ serviceName: setup.serviceName ?? "file", serviceType: "resource-provider" }),
};

/**
 * Starts the file resource provider: a capability server with {@link createFileService}'s handlers, listening
 * on `host:port`, registered (and kept registered) with the router as service `file`, type
 * `resource-provider`, when `routerUrl` is given. Besides `excludedRoots` and the home, it never serves the
 * `.trestle` directory of the working directory.
 *
 * @throws TrestleError InvalidArgument when a root is not a directory; an error when the port cannot be bound.
 */
export function startFileService(options: StartFileServiceOptions = {}): Promise<RunningFileService> {
  return startCapabilityService(fileCapability, options);
}
