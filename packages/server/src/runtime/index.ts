/**
 * Process-wide tuning of Node internals for a process that runs the router, kept only where an A/B of the router
 * shows its gain above the machine's noise (docs/performance.md, "Process-wide settings").
 *
 * Off unless asked for: `@trestle/server` changes nothing of the process that loads it. `trestle serve` turns this
 * on; an application embedding `createRouter` opts in by importing `@trestle/server/runtime` and calling
 * {@link tuneProcessForRouter} at its start, knowing that each change applies to everything else it runs.
 *
 * @packageDocumentation
 */
import { installLeanAsyncResourceBind } from "./async-resource-bind.js";
import { pinTickObjectShape } from "./tick-object-shape.js";

export { type AsyncResourceBindTarget, installLeanAsyncResourceBind } from "./async-resource-bind.js";
export {
  pinTickObjectShape,
  type TickObjectShape,
  type TickObjectShapeSources,
} from "./tick-object-shape.js";

/** What {@link tuneProcessForRouter} changed. */
export interface ProcessTuning {
  /** Puts back what was changed (on shutdown, or in a test); a second call does nothing. */
  release(): void;
}

/**
 * Turns on every tuning of this entry: {@link pinTickObjectShape} and {@link installLeanAsyncResourceBind}. Call it
 * as early as the process can, before it loads the router; each one changes nothing on a Node it does not apply to.
 *
 * @example
 * ```ts
 * import { tuneProcessForRouter } from "@trestle/server/runtime";
 * const tuning = tuneProcessForRouter();
 * const { createRouter, resolveConfig } = await import("@trestle/server");
 * ```
 */
export function tuneProcessForRouter(): ProcessTuning {
  const tickObjectShape = pinTickObjectShape();
  const restoreBind = installLeanAsyncResourceBind();
  return {
    release() {
      restoreBind();
      tickObjectShape.release();
    },
  };
}
