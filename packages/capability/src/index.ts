/**
 * The SDK for writing Trestle (and Wanaku) capability services in TypeScript: serve the five Wanaku v1
 * services over gRPC, gRPC-Web and Connect on one port, store provisioned configuration and secrets in files,
 * and stay registered with a router.
 *
 * @packageDocumentation
 */
export { CAPABILITY_SECRET_METADATA_KEY } from "@trestle/wanaku";
export {
  type CapabilityServer,
  type CapabilityServerAddress,
  type CapabilityServerOptions,
  type CapabilityServerTlsOptions,
  createCapabilityServer,
  DEFAULT_MAX_REQUEST_BYTES,
} from "./capability-server.js";
export {
  createFileProvisioner,
  type FileProvisionerOptions,
  type ProvisionedPropertySchema,
  type ProvisionerHandler,
  parseProperties,
  type ReadProvisionedOptions,
  readProvisionedConfiguration,
  readProvisionedText,
} from "./file-provisioner.js";
export {
  createRegistrationClient,
  type RegistrationClient,
  type RegistrationClientOptions,
  type RegistrationEvent,
  type RegistrationTarget,
} from "./registration-client.js";
export {
  type CapabilityCli,
  parseCapabilityCli,
  type ServeCapabilityOptions,
  type ServiceEnvironment,
  serveCapability,
} from "./serve-capability.js";
export {
  type ParsedServiceCommandLine,
  parseServiceCommandLine,
  type ServiceCommandLine,
  type ServiceFlag,
  type ServiceFlags,
  type ServiceFlagValue,
  type ServiceFlagValues,
  type StandardServiceOptions,
  serviceUsage,
} from "./service-command-line.js";
export {
  advertisedHost,
  type CapabilityDefinition,
  type CapabilityServiceOptions,
  defaultServiceHome,
  type RunningCapabilityService,
  type ServiceRegistration,
  type ServiceSetup,
  startCapabilityService,
} from "./start-capability-service.js";
export { type StopOnSignalsOptions, stopOnSignals } from "./stop-on-signals.js";
