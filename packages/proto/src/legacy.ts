/**
 * The Wanaku capability contract, legacy generation (Wanaku <= 0.0.9, the seed-era bridge): packages `tool`,
 * `resource` and `codeexecution`, with `isError` in every reply and enums without an UNSPECIFIED value.
 *
 * Only a transport that speaks the legacy dialect needs these; everything above the transport uses v1.
 *
 * @packageDocumentation
 */
export * as legacyCodeExecution from "./gen/legacy/codeexecution/codeexecution_pb.js";
export * as legacyResource from "./gen/legacy/resource/resourcerequest_pb.js";
export * as legacyProvision from "./gen/legacy/tool/provision_pb.js";
export * as legacyTool from "./gen/legacy/tool/toolrequest_pb.js";
