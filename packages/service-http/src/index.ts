/**
 * Trestle's built-in HTTP tool invoker: a tool's `uri` is a URL template, its provisioned configuration and
 * secrets add method, headers and query parameters, and the answer's text is the tool's result. Private
 * and loopback addresses are refused unless allowed (SSRF guard), checked on the resolved addresses.
 *
 * @packageDocumentation
 */
export {
  type AddressPolicy,
  type AddressPolicyOptions,
  createAddressPolicy,
  isPrivateAddress,
} from "./address-policy.js";
export { HTTP_CLI, HTTP_USAGE, parseHttpCommandLine } from "./cli-options.js";
export {
  createHttpService,
  DEFAULT_HTTP_TIMEOUT_MS,
  DEFAULT_MAX_RESPONSE_BYTES,
  type HttpServiceOptions,
} from "./http-service.js";
export {
  httpCapability,
  type RunningHttpService,
  type StartHttpServiceOptions,
  startHttpService,
} from "./start-http-service.js";
export { codeForHttpStatus } from "./status-error.js";
export { type ExpandedUrl, expandUrlTemplate } from "./url-template.js";
