import { captureOutput, spawnNode, waitForMessage } from "./child-process.js";
import type { LoadProgress, LoadResult, LoadSpec } from "./load-spec.js";
import { distScript } from "./paths.js";

/**
 * Runs the load generator in a process of its own and resolves with what it measured. `onMeasured` runs when the
 * last measured call has been answered and before the session ends (the moment to read the servers' CPU);
 * `onProgress` gets each {@link LoadProgress} the spec's `progressIntervalMs` asks for.
 */
export async function runLoad(
  spec: LoadSpec,
  onMeasured: () => void = () => undefined,
  onProgress: (progress: LoadProgress) => void = () => undefined,
): Promise<LoadResult> {
  const child = spawnNode(distScript("load-generator.js"), [JSON.stringify(spec)], {
    ipc: true,
    role: "load",
  });
  const output = captureOutput(child);
  child.on("message", (message: { type?: string }) => {
    if (message?.type === "progress") onProgress(message as LoadProgress);
    if (message?.type !== "measured") return;
    onMeasured();
    child.send({ type: "finish" });
  });
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
