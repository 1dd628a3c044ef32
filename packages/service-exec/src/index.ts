/**
 * Trestle's built-in code execution engine: JavaScript under Node's permission model, Python in isolated
 * mode and, when enabled, Bash; each run in a fresh work directory and its own process group, with output
 * streamed as produced, a timeout, an output cap, a memory cap and cancellation.
 *
 * @packageDocumentation
 */
export { EXEC_USAGE, parseExecCommandLine } from "./cli-options.js";
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
export { scriptArguments } from "./script-arguments.js";
export {
  type RunningExecService,
  type StartExecServiceOptions,
  startExecService,
} from "./start-exec-service.js";
