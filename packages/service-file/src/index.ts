/**
 * Trestle's built-in file resource provider: files under configured roots served as resources, text as
 * text and binary as Base64, with anything outside the roots (`..`, other absolute paths, escaping symbolic
 * links) refused.
 *
 * @packageDocumentation
 */
export { FILE_CLI, FILE_USAGE, parseFileCommandLine } from "./cli-options.js";
export {
  type ContentEncoding,
  createFileService,
  DEFAULT_MAX_FILE_BYTES,
  encodeFileContent,
  type FileContent,
  type FileServiceOptions,
} from "./file-service.js";
export { isTextMimeType, mimeTypeFor } from "./mime-types.js";
export { createRootGuard, type RootGuard, type RootGuardOptions } from "./root-guard.js";
export {
  fileCapability,
  type RunningFileService,
  type StartFileServiceOptions,
  startFileService,
} from "./start-file-service.js";
