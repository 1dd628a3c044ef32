import {
  type CapabilityDefinition,
  type CapabilityServiceOptions,
  type RunningCapabilityService,
  startCapabilityService,
} from "@trestle/capability";
import { createExecService, type ExecService, type ExecServiceOptions } from "./exec-service.js";

/** Options for {@link startExecService}: the engine's own options plus where to listen and register. */
export interface StartExecServiceOptions extends ExecServiceOptions, CapabilityServiceOptions {
  /** Where the registration ids are kept. Default `./.trestle/services/exec`. */
  home?: string;
}

/** A started code execution engine; `served` holds its engine name and languages. */
export type RunningExecService = RunningCapabilityService<ExecService>;

/**
 * The code execution engine as a capability: {@link createExecService}'s handlers, registered once per
 * language as service `trestle` (the engine name), type `code-execution-engine`, sub-type the engine name,
 * language `javascript` / `python` / `bash`, each keeping its id in `service-<language>.id`. Its ready line
 * adds `engine` and `languages`.
 */
export const execCapability: CapabilityDefinition<StartExecServiceOptions, ExecService> = {
  name: "exec",
  handlers: (setup) => createExecService(setup),
  registration: (_setup, engine) =>
    engine.languages.map((language) => ({
      serviceName: engine.engineName,
      serviceType: "code-execution-engine",
      serviceSubType: engine.engineName,
      languageName: language,
      idFile: `service-${language}.id`,
      eventFields: { language },
    })),
  ready: (engine) => ({ engine: engine.engineName, languages: engine.languages }),
};

/**
 * Starts the code execution engine: a capability server with {@link createExecService}'s handlers on
 * `host:port`, registered with the router (when `routerUrl` is given) once per language (see
 * {@link execCapability}).
 *
 * @throws TrestleError FailedPrecondition when the sandbox does not work and `unconfined` is not set (see
 *   {@link createExecService}); an error when the port cannot be bound.
 */
export function startExecService(options: StartExecServiceOptions = {}): Promise<RunningExecService> {
  return startCapabilityService(execCapability, options);
}
