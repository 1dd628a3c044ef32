/**
 * Trestle's built-in code execution engine: JavaScript under Node's permission model, Python in isolated
 * mode and, when enabled, Bash; each run in its own bubblewrap sandbox (no network, no view of other
 * processes, a read-only system, its fresh work directory the only writable path), with output streamed as
 * produced, a timeout, an output cap, memory and process caps and cancellation.
 *
 * @packageDocumentation
 */
export { EXEC_CLI, EXEC_USAGE, parseExecCommandLine } from "./cli-options.js";
export {
  createExecService,
  EXEC_DEFAULTS,
  type ExecService,
  type ExecServiceOptions,
} from "./exec-service.js";
export {
  bashRuntime,
  findPython,
  javascriptRuntime,
  type LanguageName,
  type LanguageRuntime,
  pythonRuntime,
  type RunCommand,
  type RuntimeLimits,
} from "./language-runtimes.js";
export {
  type ProcessRun,
  type ProcessRunOptions,
  type RunEvent,
  type RunOutcome,
  startProcessRun,
} from "./process-run.js";
export { type BaseEnvironment, runEnvironment } from "./run-environment.js";
export {
  createSandbox,
  DEFAULT_BWRAP_PATH,
  DEFAULT_MAX_PROCESSES,
  SANDBOX_PATH,
  SANDBOX_USER_ID,
  type Sandbox,
  type SandboxedCommand,
  type SandboxOptions,
  type SandboxRun,
} from "./sandbox.js";
export { scriptArguments } from "./script-arguments.js";
export {
  execCapability,
  type RunningExecService,
  type StartExecServiceOptions,
  startExecService,
} from "./start-exec-service.js";
