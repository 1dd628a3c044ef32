import { captureOutput, spawnNode, waitForMessage } from "./child-process.js";
import type { LoadResult, LoadSpec } from "./load-spec.js";
import { distScript } from "./paths.js";

/** Runs the load generator in a process of its own and resolves with what it measured. */
export async function runLoad(spec: LoadSpec): Promise<LoadResult> {
  const child = spawnNode(distScript("load-generator.js"), [JSON.stringify(spec)], { ipc: true });
  const output = captureOutput(child);
  const failed = waitForMessage<{ type: "failed"; message: string }>(
    child,
    "failed",
    spec.warmupMs + spec.durationMs + 60_000,
    output,
  ).then(
    (message) => {
      throw new Error(`The load generator failed: ${message.message}`);
    },
    () => new Promise<never>(() => undefined),
  );
  const result = waitForMessage<LoadResult>(
    child,
    "result",
    spec.warmupMs + spec.durationMs + 60_000,
    output,
  );
  return Promise.race([result, failed]);
}
