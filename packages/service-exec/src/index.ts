/**
 * Trestle's built-in code execution engine: JavaScript under Node's permission model, Python in isolated
 * mode and, when enabled, Bash; each run in its own bubblewrap sandbox (no network, no view of other
 * processes, a read-only system, its own sized tmpfs work directory the only writable path), with output streamed
 * as produced, a timeout, an output cap, a memory bound per run (a cgroup of its own where the host allows),
 * process caps and cancellation.
 *
 * @packageDocumentation
 */
export {
  type CgroupFacts,
  type CgroupLayout,
  type CgroupMembership,
  type CgroupSearch,
  findCgroupLayout,
  type MountEntry,
  parseMountInfo,
  parseProcCgroup,
  readCgroupFacts,
} from "./cgroup-layout.js";
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
  javascriptHeapLimitMb,
  javascriptRuntime,
  type LanguageName,
  type LanguageRuntime,
  type MemoryBoundMode,
  measureNodeReservedAddressSpaceMb,
  NODE_RESERVED_ADDRESS_SPACE_MB,
  pythonRuntime,
  type RunCommand,
  type RuntimeLimits,
  underAddressSpaceLimit,
} from "./language-runtimes.js";
export {
  type ChosenMemoryBound,
  chooseMemoryBound,
  describeMemoryBound,
  type MemoryBound,
  type MemoryBoundOptions,
} from "./memory-bound.js";
export {
  type HeldStart,
  type ProcessRun,
  type ProcessRunOptions,
  type RunEvent,
  type RunOutcome,
  startProcessRun,
} from "./process-run.js";
export {
  createRunCgroups,
  type RunCgroup,
  type RunCgroupLimits,
  type RunCgroups,
} from "./run-cgroups.js";
export { type BaseEnvironment, runEnvironment } from "./run-environment.js";
export {
  createSandbox,
  DEFAULT_BWRAP_PATH,
  DEFAULT_MAX_PROCESSES,
  DEFAULT_MEMORY_LIMIT_MB,
  SANDBOX_BLOCK_FD,
  SANDBOX_INFO_FD,
  SANDBOX_PATH,
  SANDBOX_USER_ID,
  type Sandbox,
  type SandboxedCommand,
  type SandboxOptions,
  type SandboxProbeOptions,
  type SandboxRun,
  type SandboxTmpfsSizes,
  sandboxTmpfsSizes,
} from "./sandbox.js";
export { scriptArguments } from "./script-arguments.js";
export {
  execCapability,
  type RunningExecService,
  type StartExecServiceOptions,
  startExecService,
} from "./start-exec-service.js";
